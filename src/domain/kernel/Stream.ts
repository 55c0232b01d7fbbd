import { type Either, type ParseResult, Schema } from "effect"
import { foldEvents } from "./Decider.js"

/**
 * How a store keeps one kind of stream: the fold that rebuilds its state and the schema of its events, and nothing
 * about where it is kept. Stores decode journal lines with `events` and rebuild state with `evolve`; they never
 * decide anything.
 */
export interface StreamCodec<S, E> {
  readonly initialState: S
  readonly evolve: (state: S, event: E) => S
  /** Folds many events in one pass when `evolve` copies the state per event; must equal folding `evolve`. */
  readonly fold?: (state: S, events: ReadonlyArray<E>) => S
  readonly events: Schema.Schema<E, any>
  /**
   * The state's schema, for stores that keep snapshots of long streams: a snapshot holds the state after some
   * version, so a new reader folds only what came after it. Encoding then decoding a reachable state must give it
   * back.
   */
  readonly snapshot?: Schema.Schema<S, any>
}

/**
 * How a store that keeps files projects one stream: onto one text file a person may edit (`file`, relative to the
 * store's directory), or onto several files that are written and never read back. A store knows its projections
 * from when it is built (the odek layout: src/domain/odek/projections.ts); the EventStore port knows none.
 */
export type StreamProjection =
  | { readonly kind: "text"; readonly file: string; readonly text: TextProjection<any, any> }
  | { readonly kind: "files"; readonly files: FilesProjection<any, any> }

/** The projections of a file-keeping store, by stream name. */
export type Projections = ReadonlyMap<string, StreamProjection>

/**
 * A projection onto several files that are written, never read back as state: the journal alone decides (an
 * agent can write to the directory, so nothing it puts there may change what the store believes). Paths are
 * relative to the store's directory and come from validated state.
 */
export interface FilesProjection<S, E> {
  /** Every file of the projection for `state`, path → content. */
  readonly render: (state: S) => ReadonlyMap<string, string>
  /** The file written last in each batch; its hash in the journal tells a current projection from a stale one. */
  readonly manifest: string
  /**
   * The subdirectories its files live in (relative, `/`-separated, parents first), when they are not all in the
   * store's directory: a store creates them and sweeps them for what a crashed writer left.
   */
  readonly directories?: ReadonlyArray<string>
  /**
   * Events adopting files found without any history (an existing odek directory), given a reader of the
   * directory's files (undefined when absent or unreadable), or none when there is nothing to adopt.
   */
  readonly imported: (read: (file: string) => string | undefined, at: string) => ReadonlyArray<E>
  /**
   * Events re-adopting what the files hold beyond `state`, used when the journal lost its last line (cut back
   * after a truncation) while the files had already been written from it. They must never grant more trust than
   * the files could earn on their own.
   */
  readonly recovered?: (read: (file: string) => string | undefined, state: S, at: string) => ReadonlyArray<E>
}

/**
 * A projection a person may read and edit. `parse(render(s))` must equal `s` for every reachable state, so a store
 * can restore state from the projection instead of replaying the whole stream.
 */
export interface TextProjection<S, E> {
  readonly render: (state: S) => string
  readonly parse: (text: string) => S
  /** Events that adopt a projection found without any history (an existing odek directory). */
  readonly imported: (text: string, at: string) => ReadonlyArray<E>
  /** Events that record a projection a person changed behind the store's back (once `problem` found none). */
  readonly editedExternally: (text: string, state: S, at: string, note: string | undefined) => ReadonlyArray<E>
  /** Why a person's text breaks the rules every write obeys (so it must not be adopted), or undefined. */
  readonly problem: (text: string) => string | undefined
  /**
   * The same for a projection found without history (an import), when it differs: a stream may take in what an
   * older program wrote and screen it on every read instead of refusing the whole file.
   */
  readonly importProblem?: (text: string) => string | undefined
  /** The largest file that could pass `problem`; a store refuses a larger one without reading it. */
  readonly maxBytes: number
  /**
   * Events (at least one) that record a refused edit, kept by the store at `keptAs` (`bytes` long);
   * the state must not change.
   */
  readonly rejected: (reason: string, keptAs: string, bytes: number, at: string) => ReadonlyArray<E>
}

/** The state after `events`: the codec's one-pass fold when it has one, else `evolve` event by event. */
export const foldStream = <S, E>(codec: StreamCodec<S, E>, state: S, events: ReadonlyArray<E>): S =>
  codec.fold !== undefined ? codec.fold(state, events) : foldEvents(codec.evolve, state, events)

/** One appended batch; `version` counts events in the stream up to and including this batch. */
export interface Batch<E> {
  readonly version: number
  readonly at: string
  readonly events: ReadonlyArray<E>
}

/**
 * One batch in the store-wide order (the feed): `position` counts batches across every stream of the store, from 1,
 * with no gaps a reader can see; a batch keeps its position for good.
 */
export interface FeedEntry<E = unknown> {
  readonly position: number
  readonly stream: string
  readonly batch: Batch<E>
}

/** The codec of each kind of stream a feed reader decodes; streams it returns no codec for are passed over. */
export type CodecOf = (stream: string) => StreamCodec<unknown, unknown> | undefined

/** Feed consumers (checkpoints) are named by one lowercase word. */
export const isValidConsumerName = (name: string): boolean => /^[a-z0-9][a-z0-9_-]{0,63}$/.test(name)

/** Stream names are lowercase path-like words (`facts/user`, `session/20260101-ab12`); no `..`, no leading slash. */
export const isValidStreamName = (stream: string): boolean =>
  /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_.-]*)*$/.test(stream) && !stream.includes("..")

const batchCodecs = new WeakMap<
  object,
  {
    readonly encode: (events: ReadonlyArray<unknown>) => Either.Either<unknown, ParseResult.ParseError>
    readonly decode: (json: unknown) => Either.Either<ReadonlyArray<unknown>, ParseResult.ParseError>
  }
>()

/**
 * Encoder and decoder of a batch of a codec's events, built once per codec: schema construction is far more
 * expensive than running it, and stores run it on every write.
 */
export const batchCodec = <S, E>(codec: StreamCodec<S, E>) => {
  let c = batchCodecs.get(codec)
  if (c === undefined) {
    const batch = Schema.Array(codec.events)
    c = { encode: Schema.encodeEither(batch) as never, decode: Schema.decodeUnknownEither(batch) as never }
    batchCodecs.set(codec, c)
  }
  return c as {
    readonly encode: (events: ReadonlyArray<E>) => Either.Either<unknown, ParseResult.ParseError>
    readonly decode: (json: unknown) => Either.Either<ReadonlyArray<E>, ParseResult.ParseError>
  }
}
