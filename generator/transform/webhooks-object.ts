// Webhooks object -> webhooks.ts: one type per event, their discriminated union, the event table, each event's
// shape, and Standard Webhooks signing and verification (from @pgw/runtime/webhooks).
import type { StatementStructures } from 'ts-morph';
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import { StructureKind, VariableDeclarationKind, typeImport } from '../lib/ts.ts';
import type { ApiModel, JsonObject, WebhookModel } from '../model.ts';
import { docText, literal } from '../names.ts';
import { shapeOf } from './event-shapes.ts';
import { runtimeModule } from './runtime-module.ts';

const eventTypeName = (hook: WebhookModel): string => hook.typeName;

function payloadType(hook: WebhookModel): string {
  const media = hook.mediaTypes.find((m) => /[/+]json$/.test(m)) ?? hook.mediaTypes[0];
  if (media === undefined) return 'undefined';
  return `NonNullable<NonNullable<webhooks[${literal(hook.name)}][${literal(hook.method)}]>['requestBody']>['content'][${literal(media)}]`;
}

const extension = (hook: WebhookModel, key: string): string => {
  const value = hook.extensions[key];
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' ? literal(value) : 'null';
};

export function transformWebhooks(model: ApiModel, doc: JsonObject, printer: Printer): GeneratedFile {
  const hooks = model.webhooks;
  const statements: (StatementStructures | string)[] = [
    typeImport('./types.ts', ['webhooks']),
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: runtimeModule.webhooks, namespaceImport: 'signature' },
    `export {
  DEFAULT_TOLERANCE_SECONDS,
  WebhookVerificationError,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
  type EventShape,
  type VerifyOptions,
} from '${runtimeModule.webhooks}';`,
  ];
  for (const hook of hooks) {
    statements.push({
      kind: StructureKind.TypeAlias,
      name: eventTypeName(hook),
      isExported: true,
      docs: [docText(`${hook.summary ?? hook.name}: the body of a \`${hook.name}\` delivery.`)],
      type: payloadType(hook),
    });
  }
  statements.push({
    kind: StructureKind.TypeAlias,
    name: 'WebhookEvent',
    isExported: true,
    docs: ['Any event body; where each event fixes its `type`, a union discriminated by it.'],
    type: hooks.length > 0 ? hooks.map(eventTypeName).join(' | ') : 'never',
  });
  statements.push({
    kind: StructureKind.TypeAlias,
    name: 'WebhookEventName',
    isExported: true,
    docs: ['The names of the document\'s webhooks (the event types).'],
    type: hooks.length > 0 ? 'keyof webhooks' : 'never',
  });
  statements.push({
    kind: StructureKind.Interface,
    name: 'WebhookEventInfo',
    isExported: true,
    properties: [
      { name: 'name', type: 'WebhookEventName', isReadonly: true, docs: ['The event type.'] },
      { name: 'id', type: 'number | string | null', isReadonly: true, docs: ['`x-event-id` of the document, if given.'] },
      { name: 'category', type: 'string | null', isReadonly: true, docs: ['`x-event-category` of the document, if given.'] },
      { name: 'summary', type: 'string | null', isReadonly: true },
    ],
  });
  statements.push({
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['The table of event types.'],
    declarations: [{
      name: 'webhookEvents',
      type: 'readonly WebhookEventInfo[]',
      initializer: (writer) => {
        writer.write('[').indent(() => {
          for (const hook of hooks) {
            writer.writeLine(
              `{ name: ${literal(hook.name)}, id: ${extension(hook, 'x-event-id')}, category: ${extension(hook, 'x-event-category')}, summary: ${hook.summary === undefined ? 'null' : literal(hook.summary)} },`,
            );
          }
        });
        writer.write(']');
      },
    }],
  });
  // Events without a JSON body have no shape: only a payload that fits one with a shape is one of the contract's.
  const shaped = hooks.filter((hook) => hook.schema !== undefined);
  statements.push({
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['What each event body must look like (types, constants, required properties, a few levels deep), read from its schema.'],
    declarations: [{
      name: 'webhookEventShapes',
      type: 'Readonly<Record<string, signature.EventShape>>',
      initializer: (writer) => {
        writer.write('{').indent(() => {
          for (const hook of shaped) writer.writeLine(`${literal(hook.method === 'post' ? hook.name : `${hook.name} ${hook.method}`)}: ${JSON.stringify(shapeOf(doc, hook.schema) ?? {})},`);
        });
        writer.write('}');
      },
    }],
  });
  statements.push({
    kind: StructureKind.Function,
    name: 'verifyWebhookEvent',
    isExported: true,
    docs: [
      'Verifies a delivery (Standard Webhooks v1) against its raw body, as received, and returns the typed event.\n' +
        'Throws WebhookVerificationError for a missing header, a timestamp outside the tolerance (5 minutes), a\n' +
        'signature that does not match, or a body that is not one of the document\'s events (its shape checked).',
    ],
    parameters: [
      { name: 'secret', type: 'string' },
      { name: 'headers', type: 'Parameters<typeof signature.verifyWebhook>[1]' },
      { name: 'rawBody', type: 'string | Uint8Array' },
      { name: 'options', type: 'signature.VerifyOptions', initializer: '{}' },
    ],
    returnType: 'WebhookEvent',
    statements: ['return signature.contractEvent(signature.verifyWebhook(secret, headers, rawBody, options), webhookEventShapes) as WebhookEvent;'],
  });
  return printer.file('webhooks.ts', 'Webhook event types, the event table, and Standard Webhooks signing and verification.', statements);
}
