/**
 * The revision and hash of the last event of streams this process appended to or read last, least
 * recently used first out (decision 0044): an append follows the hash it finds here without
 * reading it. An event never changes once stored, so what is here is never wrong, only gone.
 */
export class StreamHeads {
  private readonly heads = new Map<string, { revision: bigint; hash: Buffer | null }>();

  constructor(private readonly capacity = 4096) {}

  /** The hash of the stream's event at `revision` (null: it has none yet), or undefined when not known here. */
  at(streamId: string, revision: bigint): Buffer | null | undefined {
    const head = this.heads.get(streamId);
    return head?.revision === revision ? head.hash : undefined;
  }

  remember(streamId: string, revision: bigint, hash: Buffer | null): void {
    this.heads.delete(streamId);
    this.heads.set(streamId, { revision, hash });
    if (this.heads.size > this.capacity) this.heads.delete(this.heads.keys().next().value as string);
  }

  delete(streamId: string): void {
    this.heads.delete(streamId);
  }
}
