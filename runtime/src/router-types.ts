// The router's shared types: an operation as the router binds it, what its handler receives and answers, and
// the typed table that dispatches each operationId to its handler.
import type { IncomingMessage, ServerResponse } from 'node:http';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';

/** One operation of the document, as the router binds it; `Id` is the union of the operations' names. */
export interface RouteDefinition<Id extends string = string> {
  /**
   * The operation's name in generated code: the document's operationId when it is an identifier, else one
   * derived from it or from the method and path (then `documentOperationId` keeps the document's own).
   */
  readonly operationId: Id;
  /** The operationId as the document writes it (null: it has none), present only where it differs from `operationId`. */
  readonly documentOperationId?: string | null;
  /** The key of the handler group (the operation's first tag, camel-cased). */
  readonly group: string;
  readonly method: HttpMethod;
  /** The path as the document writes it, e.g. `/customers/{customerId}`. */
  readonly path: string;
  /** Path parameters: the document's name and the Express-safe name used in the route. */
  readonly pathParams: readonly { readonly name: string; readonly expressName: string }[];
  /** Header parameters the operation declares (lower-case), the only headers a handler receives. */
  readonly headerParams: readonly string[];
  /** Media types the request body may have; empty when the operation takes no body. */
  readonly requestContentTypes: readonly string[];
  /** Alternative security requirements (scheme names); an empty list means none is required. */
  readonly security: readonly (readonly string[])[];
}

/** What a handler receives. */
export interface OperationInput {
  path: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body: unknown;
}

/** What a handler returns: a status the document allows, with the body it allows. */
export interface OperationResult {
  status: number;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /**
   * A body written as it is produced (a large export), instead of `body`: each chunk is sent when it comes.
   * Response validation does not see a streamed body; its producer is responsible for its shape.
   */
  stream?: AsyncIterable<string>;
}

/** One operation's handler types: its input (as validated) and its result. */
export interface OperationTypes {
  input: unknown;
  result: OperationResult;
}

/** A map from each operationId to its handler types (the generated `Operations`). */
export type OperationsMap<Ops> = { readonly [K in keyof Ops]: OperationTypes };

/** The handler of each operation, by operationId, typed by that operation's own input and result. */
export type Dispatch<Ops extends OperationsMap<Ops>, Ctx> = {
  readonly [K in keyof Ops]: (input: Ops[K]['input'], context: Ctx) => Promise<Ops[K]['result']>;
};

/** The default handler context. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  route: RouteDefinition;
}

/** What `next` receives: nothing to go on, or the error of the request. */
export type NextFunction = (err?: unknown) => void;

/** The router: an Express middleware, or a Node request handler with a `next` of its own. */
export type ApiRouter = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;
