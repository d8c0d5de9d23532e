import { randomBytes } from 'node:crypto';

/** The header by which a hosted tool's data request names its call (see RelayedReads). */
export const RELAYED_READ_HEADER = 'x-hadir-relayed-read';

/** A hosted MCP call while it runs: its token, and the fields in force its reads were under. */
export interface RelayedCall {
  /** Sent in RELAYED_READ_HEADER by the call's data requests. */
  readonly token: string;
  /** The field keys in force for the key in `campaignId` when the call read it. */
  fieldsOf(campaignId: string): readonly string[] | undefined;
  close(): void;
}

/**
 * Data answers a hosted MCP tool reads in this process on its caller's behalf. They do not leave
 * Hadir: the tool's own answer does, carrying some of their rows, and the hosted endpoint records
 * that when it leaves. A call's requests name it by a token no client can guess, so a client that
 * sends the header itself is recorded as any other.
 */
export class RelayedReads {
  /** The header a call's requests carry its token in. */
  readonly header = RELAYED_READ_HEADER;
  readonly #calls = new Map<string, Map<string, readonly string[]>>();

  open(): RelayedCall {
    const token = randomBytes(16).toString('hex');
    const fields = new Map<string, readonly string[]>();
    this.#calls.set(token, fields);
    return {
      token,
      fieldsOf: (campaignId) => fields.get(campaignId),
      close: () => {
        this.#calls.delete(token);
      },
    };
  }

  /**
   * Notes an answer read for the call `token` names; false when it names no call running now
   * (the answer is then any client's, recorded as it leaves).
   */
  note(token: unknown, campaignId: string, fields: readonly string[]): boolean {
    if (typeof token !== 'string') return false;
    const call = this.#calls.get(token);
    if (!call) return false;
    call.set(campaignId, fields);
    return true;
  }
}
