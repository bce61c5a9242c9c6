/**
 * Models cross to the workers once. A task's model used to be structured-cloned with every task: a 3-variable twin's
 * model (1,000 stored residuals per node) cost about 50 us to serialise on the main thread and as much to read back
 * in the worker, for each of the thousands of small runs a busy service answers, and a batch's chunks sent the same
 * model again each time. Now the main thread serialises a model object once (the structured-clone format, v8.serialize)
 * into shared memory and every task carries only that buffer's reference; each worker keeps the models it has read,
 * by id, and reads a model again only when it has evicted it.
 *
 * Models are values: nothing changes a model object once it is handed to the pool (a relearned version is a new
 * object; TrainedVersions parses each revision anew), so the object's identity names its bytes.
 */
import { deserialize, serialize } from 'node:v8';

/** A model as a task carries it across threads. */
export interface SharedModel {
  /** Unique among the models of this process. */
  id: number;
  /** The model in v8's structured-clone format (read only). */
  bytes: SharedArrayBuffer;
}

/** The main thread's side: each model object serialised once, for as long as the object lives. */
export class ModelSharing {
  private readonly shared = new WeakMap<object, SharedModel>();
  private next = 0;

  share(model: object): SharedModel {
    let handle = this.shared.get(model);
    if (handle === undefined) {
      const serialized = serialize(model);
      const bytes = new SharedArrayBuffer(serialized.byteLength);
      new Uint8Array(bytes).set(serialized);
      handle = { id: ++this.next, bytes };
      this.shared.set(model, handle);
    }
    return handle;
  }
}

/** Models a worker keeps at most: a few twins' versions in use at once, each small next to its rows. */
const KEPT_MODELS = 16;
/** ... and at most this many bytes of them (a 500-variable twin's model is a few MB). */
const KEPT_BYTES = 128 * 1024 * 1024;

/** A worker's side: the models it has read, least recently used evicted first. */
export class ModelCache {
  private readonly models = new Map<number, { model: unknown; size: number }>();
  private bytes = 0;

  read(handle: SharedModel): unknown {
    const kept = this.models.get(handle.id);
    if (kept !== undefined) {
      this.models.delete(handle.id);
      this.models.set(handle.id, kept);
      return kept.model;
    }
    // Read from a copy of the model's own (not Node's pooled buffers): typed arrays are read as views on the bytes
    // they are read from, which must be neither the shared buffer nor memory another object uses.
    const copy = new Uint8Array(handle.bytes.byteLength);
    copy.set(new Uint8Array(handle.bytes));
    const model: unknown = deserialize(copy);
    const size = handle.bytes.byteLength;
    this.models.set(handle.id, { model, size });
    this.bytes += size;
    for (const [id, entry] of this.models) {
      if (this.models.size <= 1 || (this.models.size <= KEPT_MODELS && this.bytes <= KEPT_BYTES)) break;
      this.models.delete(id);
      this.bytes -= entry.size;
    }
    return model;
  }
}
