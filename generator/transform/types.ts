// The whole document -> types.ts: the paths / operations / components / webhooks types of openapi-typescript,
// made in a worker thread (lib/types-worker.mjs) beside the other transforms: on two cores a full generation
// of this project's spec took 2.96 s with it in line (GitHub's REST description: 14.7 s).
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { textFile, type GeneratedFile } from '../lib/ts.ts';
import type { JsonObject } from '../model.ts';
import { generatorRoot } from '../root.ts';

/** A types.ts in the making: started before the document is read, so that its tools load meanwhile. */
export interface TypesJob {
  /**
   * Reads (and bundles) the document in the worker with loader.ts's loadDocument (`module`: its URL, as the
   * caller runs it, compiled or not): the answer comes as soon as it is read, and the worker goes on to its types.
   */
  load(file: string, module: string): Promise<JsonObject>;
  /** The file, for the document `load` read, or for `doc` (sent as a copy: openapi-typescript may annotate it). */
  run(doc: JsonObject): Promise<GeneratedFile>;
  /** Ends the worker when the generation stops before run (a document that did not load). */
  cancel(): void;
}

type Reply = { doc?: JsonObject; text?: string; error?: string };

export function startTypes(): TypesJob {
  const worker = new Worker(path.join(generatorRoot, 'lib', 'types-worker.mjs'));
  let sent = false;
  let loaded = false;
  // Every reply in order: the document (when loaded here), then the text, or an error.
  const replies: Reply[] = [];
  const waiting: ((reply: Reply) => void)[] = [];
  worker.on('message', (reply: Reply) => {
    const next = waiting.shift();
    if (next) next(reply);
    else replies.push(reply);
  });
  worker.on('error', (error) => {
    const next = waiting.shift();
    if (next) next({ error: error.message });
    else replies.push({ error: error.message });
  });
  const reply = (): Promise<Reply> => new Promise((resolve) => {
    const ready = replies.shift();
    if (ready) resolve(ready);
    else waiting.push(resolve);
  });
  const send = (message: unknown): void => {
    if (sent) throw new Error('a types job takes one document');
    sent = true;
    worker.postMessage(message);
  };
  return {
    async load(file, module) {
      send({ load: { file, module } });
      loaded = true;
      const answer = await reply();
      if (answer.doc === undefined) {
        void worker.terminate();
        throw new Error(answer.error ?? 'the document was not read');
      }
      return answer.doc;
    },
    async run(doc) {
      if (!loaded) send({ doc });
      const answer = await reply();
      void worker.terminate();
      if (answer.text !== undefined) return textFile('types.ts', `// Types of every path, operation, component and webhook (openapi-typescript).\n${answer.text}`);
      throw new Error(`openapi-typescript: ${answer.error ?? 'no answer'}`);
    },
    cancel() {
      void worker.terminate();
    },
  };
}
