// Handlers of the "Members" operations. Written once by `npm run generate` as a starting point; yours to edit.
// (The generator never overwrites this file. Remove this note once the handlers are written.)
import type { MembersHandlers } from '../library/handlers.ts';
import type * as op from '../library/operations.ts';

export const membersHandlers = {
  // (input: op.GetMemberInput, context: RequestContext)
  getMember(): Promise<op.GetMemberResult> {
    return Promise.reject(new Error('getMember: this handler is still to be written'));
  },
} satisfies MembersHandlers;
