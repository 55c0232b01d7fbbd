import { FastCheck as fc } from "effect"
import { FUNCTION_WORDS, LANGUAGES, NEGATIONS } from "../../../src/domain/text/functionWords.js"

/** The kinds of distinguishing token a template slot holds. */
export type Slot = "name" | "word" | "number" | "port" | "version" | "path" | "url" | "ident" | "date"

const NOT_CONTENT = new Set(LANGUAGES.flatMap((l) => [...FUNCTION_WORDS[l], ...NEGATIONS[l]]))
const content = (w: string) => !NOT_CONTENT.has(w.toLowerCase())

const lower = fc.stringMatching(/^[a-zäöüéèçñåøß]{3,9}$/).filter(content)
const segment = fc.stringMatching(/^[a-z0-9]{1,8}$/)

const VALUES: Readonly<Record<Slot, fc.Arbitrary<string>>> = {
  // names as people write them, accented ones and names that are also function words ("Will", "May", "Dan") included
  name: fc.oneof(
    { weight: 6, arbitrary: fc.stringMatching(/^[A-ZÉØŁÅ][a-zéèöüñçåøł]{2,8}$/).filter(content) },
    { weight: 1, arbitrary: fc.constantFrom("Will", "May", "Dan", "Ben", "Zoë", "Øyvind", "José", "Łukasz") }
  ),
  word: lower,
  number: fc.integer({ min: 0, max: 999_999 }).map(String),
  port: fc.integer({ min: 1, max: 65_535 }).map(String),
  version: fc
    .tuple(fc.nat(40), fc.nat(40), fc.option(fc.nat(99), { nil: undefined }), fc.boolean())
    .map(([a, b, c, v]) => `${v ? "v" : ""}${a}.${b}${c === undefined ? "" : `.${c}`}`),
  path: fc
    .tuple(fc.constantFrom("/", "~/", "./", "/var/"), fc.array(segment, { minLength: 1, maxLength: 4 }))
    .map(([root, s]) => root + s.join("/")),
  url: fc
    .tuple(
      fc.constantFrom("https", "http"),
      segment,
      fc.constantFrom("example.com", "example.org", "acme.dev"),
      segment
    )
    .map(([s, h, d, p]) => `${s}://${h}.${d}/${p}`),
  ident: fc.oneof(
    fc.tuple(lower, lower).map(([a, b]) => `${a}_${b}`),
    fc.tuple(lower, lower).map(([a, b]) => `${a}${b[0]!.toUpperCase()}${b.slice(1)}`),
    fc.tuple(lower, lower).map(([a, b]) => `${a}-${b}`),
    fc.tuple(lower, lower, fc.constantFrom("ts", "js", "py", "go")).map(([a, b, c]) => `${a}.${b}.${c}`),
    fc.stringMatching(/^[0-9a-f]{7,12}$/).filter((h) => /[a-f]/.test(h) && /[0-9]/.test(h))
  ),
  date: fc
    .tuple(fc.integer({ min: 2000, max: 2040 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
    .map(([y, m, d]) => `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`)
}

/** Fact templates of several languages; `{kind}` is a slot. Each keeps its wording: only slot values change. */
export const TEMPLATES: ReadonlyArray<string> = [
  "{name} maintains the {word} service on port {port}",
  "The {word} database runs {name} {version} on port {port}",
  "Uses {word} for editing and {word} for email",
  "Config lives in {path}",
  "The staging dashboard is at {url}",
  "The feature flag {ident} is on in production",
  "Lives in {name} and works in {name}",
  "The release {version} is planned for {date}",
  "The cache holds {number} entries per tenant",
  "Prefers {word} over {word}",
  "Migrating from {name} to {name}",
  "Docker maps port {port} to {port}",
  "Der {word}-Dienst läuft auf Port {port} bei {name}",
  "{name} betreut das Projekt {ident} seit {date}",
  "Die Konfiguration liegt in {path}",
  "Le serveur {name} écoute sur le port {port}",
  "Utilise {word} {version} pour les tests",
  "La documentation est sur {url}",
  "El servidor {name} escucha en el puerto {port}",
  "{name} mantiene el servicio {ident}",
  "Vive en {name} desde {date}",
  "{name} gestisce il database {word} sulla porta {port}",
  "Il progetto usa {name} {version}",
  "O banco de dados {word} roda na porta {port}",
  "{name} mantém o serviço em {path}",
  "{name} beheert de {word} op {url}",
  "Het project gebruikt {name} {version} sinds {date}",
  "{name} utrzymuje serwis {ident}"
]

const slotsOf = (template: string): ReadonlyArray<Slot> =>
  [...template.matchAll(/\{(\w+)\}/gu)].map((m) => m[1] as Slot)

const fill = (template: string, values: ReadonlyArray<string>) => {
  let i = 0
  return template.replace(/\{\w+\}/gu, () => values[i++]!)
}

/**
 * Whether two values of a slot kind are different distinguishing tokens. Plain words must also start differently
 * ("theme"/"themes" are one word inflected), and a name plus a plural or verb ending ("Dana"/"Danas") is one name.
 */
const differ = (slot: Slot, a: string, b: string) => {
  const x = a.toLowerCase().replace(/^v(?=\d)/u, "")
  const y = b.toLowerCase().replace(/^v(?=\d)/u, "")
  if (slot === "word") return x[0] !== y[0]
  const [short, long] = x.length <= y.length ? [x, y] : [y, x]
  return slot === "name"
    ? x !== y && !(long.startsWith(short) && ["s", "es", "d", "ed"].includes(long.slice(short.length)))
    : x !== y
}

/**
 * A different-fact pair: one template, and at least one slot whose value is replaced by a different value of the
 * same kind (the other slots may change too). `existing` and `incoming` share all the template's wording.
 */
export const differentPair = (templates: ReadonlyArray<string> = TEMPLATES) =>
  fc.constantFrom(...templates).chain((template) => {
    const slots = slotsOf(template)
    return (
      fc
        .tuple(
          fc.tuple(...slots.map((s) => VALUES[s])),
          fc.tuple(...slots.map((s) => VALUES[s])),
          fc.array(fc.boolean(), { minLength: slots.length, maxLength: slots.length }),
          fc.nat(slots.length - 1),
          fc.constantFrom("plain", "plain", "echo", "near")
        )
        .map(([drawn, drawnB, change, forced, variant]) => {
          const twinOf = slots.findIndex((s, i) => i !== forced && s === slots[forced])
          // echo: the entry repeats a value ("maps 8080 to 8080"), and the new text changes one of the two
          const a = variant === "echo" && twinOf >= 0 ? drawn.map((v, i) => (i === twinOf ? drawn[forced]! : v)) : drawn
          // near: a name one letter longer ("Mark" / "Marko"), which only a careless stemmer would take for the same
          const b =
            variant === "near" && slots[forced] === "name"
              ? drawnB.map((v, i) => (i === forced ? `${a[forced]!}o` : v))
              : drawnB
          // two slots of one kind swapped ("from MySQL to Postgres" / "from Postgres to MySQL"), when the template has
          // them
          const twin = slots.findIndex((s, i) => i !== forced && s === slots[forced])
          const swapped = variant === "plain" && twin >= 0 && change[forced] === true
          const incomingValues = swapped
            ? a.map((v, i) => (i === forced ? a[twin]! : i === twin ? a[forced]! : v))
            : a.map((v, i) => (i === forced || change[i] ? b[i]! : v))
          return {
            template,
            slots,
            existing: fill(template, a),
            incoming: fill(template, incomingValues),
            a,
            b: incomingValues
          }
        })
        // every changed slot really changes (a value drawn equal to the old one is no change), and at least one does
        .filter(
          ({ a, b }) => a.every((v, i) => v === b[i] || differ(slots[i]!, v, b[i]!)) && a.some((v, i) => v !== b[i])
        )
    )
  })

/** A restatement: the same filled template, extended by a clause of its own, or given again with other spacing/case. */
export const restatementPair = (templates: ReadonlyArray<string> = TEMPLATES) =>
  fc.constantFrom(...templates).chain((template) => {
    const slots = slotsOf(template)
    return fc
      .tuple(
        fc.tuple(...slots.map((s) => VALUES[s])),
        fc.constantFrom("", ".", " (confirmed)", ", since last week", " and more", " too")
      )
      .map(([a, tail]) => ({ template, existing: fill(template, a), incoming: `${fill(template, a)}${tail}` }))
  })
