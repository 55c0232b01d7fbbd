import { Chunk, Duration, Effect, Option, Stream } from "effect"
import type { CodecOf, FeedEntry } from "../domain/kernel/Stream.js"
import type { StoreError } from "../ports/EventStore.js"

/** How many batches a subscriber takes per read: bounded memory however far behind it starts. */
const PAGE = 1_000

/**
 * A store's `subscribe` made of its `readAll`: read on from the last position handed out, and when nothing is new,
 * wait `everyMs` and look again. Nothing is skipped, since each read starts right after the last batch delivered;
 * a store whose feed is a file sees other processes' appends this way too.
 */
export const pollingSubscribe =
  (
    readAll: (after: number, codecOf: CodecOf, limit?: number) => Effect.Effect<ReadonlyArray<FeedEntry>, StoreError>,
    everyMs: number
  ) =>
  (after: number, codecOf: CodecOf): Stream.Stream<FeedEntry, StoreError> =>
    Stream.paginateChunkEffect(after, (cursor) =>
      Effect.flatMap(readAll(cursor, codecOf, PAGE), (entries) =>
        entries.length === 0
          ? Effect.as(Effect.sleep(Duration.millis(everyMs)), [Chunk.empty<FeedEntry>(), Option.some(cursor)] as const)
          : Effect.succeed([
              Chunk.unsafeFromArray(entries),
              Option.some(entries[entries.length - 1]!.position)
            ] as const)
      )
    )
