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
  /** Sends the document (a copy: openapi-typescript may annotate what it is given) and waits for the file. */
  run(doc: JsonObject): Promise<GeneratedFile>;
  /** Ends the worker when the generation stops before run (a document that did not load). */
  cancel(): void;
}

export function startTypes(): TypesJob {
  const worker = new Worker(path.join(generatorRoot, 'lib', 'types-worker.mjs'));
  let ran = false;
  return {
    run(doc) {
      if (ran) throw new Error('a types job runs once');
      ran = true;
      return new Promise<GeneratedFile>((resolve, reject) => {
        worker.once('message', (reply: { text?: string; error?: string }) => {
          void worker.terminate();
          if (reply.text !== undefined) resolve(textFile('types.ts', `// Types of every path, operation, component and webhook (openapi-typescript).\n${reply.text}`));
          else reject(new Error(`openapi-typescript: ${reply.error ?? 'no answer'}`));
        });
        worker.once('error', reject);
        worker.postMessage({ doc });
      });
    },
    cancel() {
      void worker.terminate();
    },
  };
}
