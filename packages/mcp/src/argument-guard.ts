import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** A tools/call whose arguments name `__proto__`, with the tool's name and request id. */
function protoCall(message: JSONRPCMessage): { id: string | number; tool: string } | undefined {
  const call = message as {
    id?: string | number;
    method?: string;
    params?: { name?: unknown; arguments?: unknown };
  };
  if (call.method !== 'tools/call' || call.id === undefined) return undefined;
  const args = call.params?.arguments;
  if (typeof args !== 'object' || args === null || !Object.hasOwn(args, '__proto__')) {
    return undefined;
  }
  return { id: call.id, tool: String(call.params?.name) };
}

/**
 * The transport, with calls whose arguments name `__proto__` answered as the tool's error. The
 * SDK reads arguments into a plain object, where that name is not a key but the prototype: the
 * argument would vanish, and the call be answered as if it had not been given. `refusal` says
 * it as a tool refuses any argument it does not know.
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
        const refused = protoCall(message);
        if (!refused) return handler?.(message, extra);
        void transport.send({
          jsonrpc: '2.0',
          id: refused.id,
          result: {
            content: [{ type: 'text', text: refusal(refused.tool, '__proto__') }],
            isError: true,
          },
        });
      };
    },
    get: () => transport.onmessage,
  });
  return guarded;
}
