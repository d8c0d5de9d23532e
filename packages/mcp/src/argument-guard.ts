import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What a tools/call is answered when its shape is the caller's mistake, before any tool runs. */
type Refusal =
  /** Its arguments name `__proto__`: the tool's error, as the tool refuses an unknown argument. */
  | { kind: 'proto'; id: string | number; tool: string }
  /** Its tool's name is not a string, or its arguments not an object: invalid params (-32602). */
  | { kind: 'invalid_params'; id: string | number; message: string };

const kindOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;

function refusalOf(message: JSONRPCMessage): Refusal | undefined {
  const call = message as {
    id?: string | number;
    method?: string;
    params?: unknown;
  };
  if (call.method !== 'tools/call' || call.id === undefined) return undefined;
  // The transport took the message as JSON-RPC: its params, when present, are an object.
  const { name, arguments: args } = (call.params ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') {
    return {
      kind: 'invalid_params',
      id: call.id,
      message: `tools/call names its tool in params.name, a string, not ${kindOf(name)}`,
    };
  }
  if (args === undefined) return undefined;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return {
      kind: 'invalid_params',
      id: call.id,
      message: `${name} takes its arguments as an object, e.g. {"campaignId": "pernikahan-rina-bayu"}, not ${kindOf(args)}`,
    };
  }
  return Object.hasOwn(args, '__proto__') ? { kind: 'proto', id: call.id, tool: name } : undefined;
}

/**
 * The transport, with calls whose arguments name `__proto__` answered as the tool's error, and
 * calls whose tool name is not a string or arguments not an object answered -32602 (invalid params), the caller's
 * mistake, in words (the SDK would call it an internal error). The SDK reads arguments into a
 * plain object, where `__proto__` is not a key but the prototype: the argument would vanish, and
 * the call be answered as if it had not been given. `refusal` says it as a tool refuses any
 * argument it does not know.
 */
export function guardArguments(
  transport: Transport,
  refusal: (tool: string, argument: string) => string,
): Transport {
  const guarded: Transport = {
    start: () => transport.start(),
    send: (message, options) => transport.send(message, options),
    close: () => transport.close(),
  };
  Object.defineProperty(guarded, 'sessionId', { get: () => transport.sessionId });
  for (const hook of ['onclose', 'onerror'] as const) {
    Object.defineProperty(guarded, hook, {
      get: () => transport[hook],
      set: (handler) => {
        transport[hook] = handler;
      },
    });
  }
  Object.defineProperty(guarded, 'onmessage', {
    set: (handler: Transport['onmessage']) => {
      transport.onmessage = (message, extra) => {
        const refused = refusalOf(message);
        if (!refused) return handler?.(message, extra);
        void transport.send(
          refused.kind === 'proto'
            ? {
                jsonrpc: '2.0',
                id: refused.id,
                result: {
                  content: [{ type: 'text', text: refusal(refused.tool, '__proto__') }],
                  isError: true,
                },
              }
            : {
                jsonrpc: '2.0',
                id: refused.id,
                error: { code: -32602, message: refused.message },
              },
        );
      };
    },
    get: () => transport.onmessage,
  });
  return guarded;
}
