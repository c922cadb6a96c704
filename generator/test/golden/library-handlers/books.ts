// Handlers of the "Books" operations. Written once by `npm run generate` as a starting point; yours to edit.
// (The generator never overwrites this file. Remove this note once the handlers are written.)
import type { BooksHandlers } from '../library/handlers.ts';
import type * as op from '../library/operations.ts';

export const booksHandlers = {
  // (input: op.SearchBooksInput, context: RequestContext)
  searchBooks(): Promise<op.SearchBooksResult> {
    return Promise.reject(new Error('searchBooks: this handler is still to be written'));
  },
  // (input: op.AddBookInput, context: RequestContext)
  addBook(): Promise<op.AddBookResult> {
    return Promise.reject(new Error('addBook: this handler is still to be written'));
  },
  // (input: op.GetBookInput, context: RequestContext)
  getBook(): Promise<op.GetBookResult> {
    return Promise.reject(new Error('getBook: this handler is still to be written'));
  },
  // (input: op.WithdrawBookInput, context: RequestContext)
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- deprecated in the document, still served
  withdrawBook(): Promise<op.WithdrawBookResult> {
    return Promise.reject(new Error('withdrawBook: this handler is still to be written'));
  },
} satisfies BooksHandlers;
