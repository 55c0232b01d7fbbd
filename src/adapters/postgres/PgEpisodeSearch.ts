import { Effect, Layer } from "effect"
import { BM25_B, BM25_K1, COVERAGE_MIN_WEIGHT, idf, termCeiling } from "../../domain/search/bm25.js"
import { searchTerms } from "../../domain/search/terms.js"
import { StoreError } from "../../ports/EventStore.js"
import { AtomSearch, EpisodeSearch, type SearchMatch } from "../../ports/EpisodeSearch.js"
import { openDatabase, type PgConnection, settle } from "./shared.js"

/** Documents written per statement when an index is brought in step (a first sync puts every episode). */
const CHUNK = 500
/** The most positions PostgreSQL keeps per lexeme: a term's count in a document saturates there (BM25 barely moves). */
const MAX_POSITIONS = 256

/** A lexeme as a tsvector or tsquery literal. Search terms are letters, marks and digits; quoting covers the rest. */
const quoted = (term: string) => `'${term.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`

/** A document's terms as a tsvector literal (its counts as positions) and its length in terms. */
const vectorOf = (text: string) => {
  const counts = new Map<string, number>()
  const terms = searchTerms(text)
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1)
  const lexemes = [...counts].map(([t, n]) => {
    const positions = Array.from({ length: Math.min(n, MAX_POSITIONS) }, (_, i) => i + 1).join(",")
    return `${quoted(t)}:${positions}`
  })
  return { vector: lexemes.join(" "), length: terms.length }
}

/**
 * The lexical half of recall answered by PostgreSQL (issue 14): each document's search terms (the same analyzer as
 * the local index, so a query meets the same vocabulary) as a tsvector under a GIN index, and BM25 computed by the
 * database over the documents the query's terms reach. Everything every host of the memory indexed is one index.
 * The port's calls cannot fail: a database that is down answers no match and the update is tried again by the next
 * recall (its mark is not moved), with a warning.
 */
export const make = (options: PgConnection, collection: "episodes" | "atoms" = "episodes") =>
  Effect.gen(function* () {
    const settled = settle(options)
    const { memory } = settled instanceof StoreError ? { memory: "" } : settled
    const db = settled instanceof StoreError ? undefined : yield* openDatabase(options, settled)
    const unusable = (e: StoreError) => Effect.logWarning(`memory: episode search skipped: ${e.text}`)
    const run = <A>(
      fallback: A,
      f: (database: NonNullable<typeof db>) => Effect.Effect<A, StoreError>
    ): Effect.Effect<A> =>
      db === undefined
        ? Effect.as(unusable(settled as StoreError), fallback)
        : f(db).pipe(Effect.catchAll((e) => Effect.as(unusable(e), fallback)))
    const where = "memory = $1 AND collection = $2"

    /** The collection's size, mean length and each term's document frequency. */
    const statsOf = (d: NonNullable<typeof db>, terms: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const size = yield* d.query<{ n: string; mean: number | null }>(
          "search",
          "",
          `SELECT count(*) AS n, avg(length)::float8 AS mean FROM ${d.t("search_docs")} WHERE ${where}`,
          [memory, collection]
        )
        const n = Number(size.rows[0]?.n ?? 0)
        const frequencies = yield* d.query<{ term: string; df: string }>(
          "search",
          "",
          `SELECT q.term, (SELECT count(*) FROM ${d.t("search_docs")} s
             WHERE s.memory = $1 AND s.collection = $2 AND s.terms @@ q.query) AS df
           FROM unnest($3::text[], $4::tsquery[]) AS q(term, query)`,
          [memory, collection, terms, terms.map(quoted)]
        )
        const df = new Map(frequencies.rows.map((r) => [r.term, Number(r.df)] as const))
        return { n, mean: size.rows[0]?.mean ?? 0, df }
      })

    const search = (query: string, limit: number): Effect.Effect<ReadonlyArray<SearchMatch>> =>
      run([] as ReadonlyArray<SearchMatch>, (d) =>
        Effect.gen(function* () {
          const terms = [...new Set(searchTerms(query))]
          if (terms.length === 0 || limit <= 0) return []
          const { n, mean, df } = yield* statsOf(d, terms)
          if (n === 0) return []
          const weights = terms.map((t) => idf(n, df.get(t) ?? 0))
          const covers = weights.map((w) => Math.max(w, COVERAGE_MIN_WEIGHT))
          const ceiling = covers.reduce((s, w) => s + termCeiling(w), 0)
          // BM25 of each document the query reaches (termScore in SQL), best first, ties in id order
          const tf = "cardinality(u.positions)::float8"
          const saturation =
            `(${tf} * ${BM25_K1 + 1}) / ` +
            `(${tf} + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * s.length / greatest($6::float8, 1)))`
          const found = yield* d.query<{ id: string; score: number; covered: number }>(
            "search",
            "",
            `SELECT s.id, sum(w.weight * ${saturation}) AS score, sum(w.cover * ${saturation}) AS covered
             FROM ${d.t("search_docs")} s
             CROSS JOIN LATERAL unnest(s.terms) AS u(lexeme, positions, weights)
             JOIN unnest($3::text[], $4::float8[], $5::float8[]) AS w(term, weight, cover) ON w.term = u.lexeme
             WHERE s.memory = $1 AND s.collection = $2 AND s.terms @@ $7::tsquery
             GROUP BY s.id
             ORDER BY score DESC, s.id COLLATE "C"
             LIMIT $8`,
            [memory, collection, terms, weights, covers, mean, terms.map(quoted).join(" | "), limit]
          )
          return found.rows.map((r) => ({ id: r.id, score: r.score, coverage: r.covered / ceiling }))
        })
      )

    const index = EpisodeSearch.of({
      indexed: run(new Map<string, string>() as ReadonlyMap<string, string>, (d) =>
        Effect.map(
          d.query<{ id: string; stamp: string }>(
            "search",
            "",
            `SELECT id, stamp FROM ${d.t("search_docs")} WHERE ${where}`,
            [memory, collection]
          ),
          (r) => new Map(r.rows.map((row) => [row.id, row.stamp] as const))
        )
      ),
      inStepWith: run(undefined as string | undefined, (d) =>
        Effect.map(
          d.query<{ mark: string }>("search", "", `SELECT mark FROM ${d.t("search_marks")} WHERE ${where}`, [
            memory,
            collection
          ]),
          (r) => r.rows[0]?.mark
        )
      ),
      update: (put, remove, mark) =>
        run(undefined, (d) =>
          Effect.asVoid(
            d.transaction("index episodes of", "", async (c) => {
              if (remove.length > 0)
                await c.query(`DELETE FROM ${d.t("search_docs")} WHERE ${where} AND id = ANY($3::text[])`, [
                  memory,
                  collection,
                  remove
                ])
              for (let i = 0; i < put.length; i += CHUNK) {
                const docs = put.slice(i, i + CHUNK).map((doc) => ({ ...doc, ...vectorOf(doc.text) }))
                await c.query(
                  `INSERT INTO ${d.t("search_docs")} (memory, collection, id, stamp, length, terms)
                   SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::integer[], $6::tsvector[])
                   ON CONFLICT (memory, collection, id)
                   DO UPDATE SET stamp = EXCLUDED.stamp, length = EXCLUDED.length, terms = EXCLUDED.terms`,
                  [
                    memory,
                    collection,
                    docs.map((x) => x.id),
                    docs.map((x) => x.stamp),
                    docs.map((x) => x.length),
                    docs.map((x) => x.vector)
                  ]
                )
              }
              if (mark === undefined)
                await c.query(`DELETE FROM ${d.t("search_marks")} WHERE ${where}`, [memory, collection])
              else
                await c.query(
                  `INSERT INTO ${d.t("search_marks")} (memory, collection, mark) VALUES ($1, $2, $3)
                   ON CONFLICT (memory, collection) DO UPDATE SET mark = EXCLUDED.mark`,
                  [memory, collection, mark]
                )
            })
          )
        ),
      search,
      termWeights: (query) =>
        run(new Map<string, number>() as ReadonlyMap<string, number>, (d) =>
          Effect.gen(function* () {
            const terms = [...new Set(searchTerms(query))]
            if (terms.length === 0) return new Map<string, number>()
            const { n, df } = yield* statsOf(d, terms)
            return new Map(terms.map((t) => [t, idf(Math.max(n, 1), df.get(t) ?? 0)] as const))
          })
        )
    })
    return index
  })

export const layer = (options: PgConnection): Layer.Layer<EpisodeSearch> => Layer.scoped(EpisodeSearch, make(options))

/** The same over Extended Memory's live atoms. */
export const atomLayer = (options: PgConnection): Layer.Layer<AtomSearch> =>
  Layer.scoped(AtomSearch, make(options, "atoms"))
