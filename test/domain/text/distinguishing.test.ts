import { describe, expect, it } from "vitest"
import {
  analyse,
  describeChange,
  detectLanguages,
  factChange,
  summariesDiffer
} from "../../../src/domain/text/distinguishing.js"

const why = (a: string, b: string) => {
  const c = factChange(a, b)
  return c === undefined ? undefined : describeChange(c)
}

describe("distinguishing tokens", () => {
  it("classifies numbers, versions, paths, URLs, identifiers and names, and drops function words", () => {
    const { tokens } = analyse(
      "Dana runs the auth-service v1.2.3 on port 8080 at https://Git.Example.com/X, " +
        "config in /etc/app and MySQL in São Paulo."
    )
    expect(tokens.map((t) => [t.key, t.kind])).toEqual([
      ["dana", "word"],
      ["runs", "word"],
      ["auth-service", "identifier"],
      ["1.2.3", "version"],
      ["port", "word"],
      ["8080", "number"],
      ["https://git.example.com/X", "url"],
      ["config", "word"],
      ["/etc/app", "path"],
      ["mysql", "name"],
      ["são", "name"],
      ["paulo", "name"]
    ])
  })

  it("reads function words in the languages the texts use", () => {
    expect(detectLanguages(["Der Server läuft auf dem Port"])).toEqual(["de"])
    expect(detectLanguages(["Le serveur écoute sur le port"])).toEqual(["fr"])
    expect(detectLanguages(["Uses vim"])).toEqual([])
    // "Dan" is Dutch for "then", but not in an English sentence
    expect(analyse("Dan maintains the auth service").tokens.map((t) => t.key)).toEqual([
      "dan",
      "maintains",
      "auth",
      "service"
    ])
    expect(analyse("Will maintains the service").tokens.map((t) => t.key)).toEqual(["will", "maintains", "service"])
  })

  it("the issue's pairs are different facts, with the tokens that differ named", () => {
    expect(why("MySQL 8 runs on port 3306", "Memcached runs on port 11211")).toBe(
      '"MySQL", "8", "3306" would become "Memcached", "11211"'
    )
    expect(why("Dana maintains the auth service", "Eli maintains the queue service")).toBe(
      '"Dana", "auth" would become "Eli", "queue"'
    )
    expect(why("Uses vim", "Uses helix")).toBe('"vim" would become "helix"')
    expect(why("Deploys with Argo CD", "Built with Vite")).toBe('"Deploys", "Argo", "CD" would become "Built", "Vite"')
    expect(why("Docker maps port 8080 to 8080", "Docker maps port 8080 to 9090")).toBe('"8080" would become "9090"')
    expect(why("Prefers tabs over spaces", "Prefers spaces over tabs")).toBe('"spaces" stands in a different order')
    expect(why("Likes tabs", "Doesn't like tabs")).toBe("one text negates what the other states")
    expect(why("Aime les réunions", "N'aime pas les réunions")).toBe("one text negates what the other states")
    expect(why("Mark owns billing", "Marko owns billing")).toBe('"Mark" would become "Marko"')
    expect(why("Runs on db1", "Runs on db10")).toBe('"db1" would become "db10"')
    expect(why("用户喜欢深色主题", "用户喜欢浅色主题")).toBe('"深" would become "浅"')
  })

  // fast-check found this one: the swapped word also stood earlier in the summary, and only its first occurrence was
  // followed
  it("a swap is a reordering even when a swapped word also stands earlier in the text", () => {
    const around = (fact: string) =>
      `On the call the user and the assistant worked through the build. ${fact}. The tests pass again.`
    expect(summariesDiffer(around("Prefers call over ñåø"), around("Prefers ñåø over call"))).toMatchObject({
      _tag: "Reordered"
    })
    expect(
      why("Joins the standup call, then the call with Dana", "Joins the standup call, then Dana with the call")
    ).toMatch(/different order/)
    // a word said twice and restated once is still a restatement
    expect(why("Uses vim, and vim only, for commits", "Uses vim for commits")).toBeUndefined()
  })

  it("restating, extending, inflecting or saying less is no change", () => {
    for (const [a, b] of [
      ["Prefers light themes in editors", "Prefers light themes in editors and browsers"],
      ["User prefers dark mode", "The user prefers dark mode."],
      ["Node 18 on CI", "Node v18 on the CI runners"],
      ["Prefer terse answers", "Prefers terse answers"],
      ["Likes tabs", "Likes tabs, not spaces"],
      ["Uses vim and tmux", "Uses vim"],
      ["Le serveur écoute sur le port 8080", "Le serveur écoute sur le port 8080 en production"],
      ["Der Server läuft auf Port 5432", "Der Server läuft auf Port 5432 im Rechenzentrum"],
      ["Prefiere el tema oscuro", "Prefiere los temas oscuros"]
    ] as const)
      expect(why(a, b), `${a} | ${b}`).toBeUndefined()
  })

  it("episode summaries must also agree on every strong token, in both directions", () => {
    const a = "Fixed the parser for release 2.4 with Dana."
    expect(summariesDiffer(a, a)).toBeUndefined()
    expect(summariesDiffer(a, `${a}  `)).toBeUndefined()
    expect(summariesDiffer(a, "Fixed the parser for release 2.4 with Dana and Eli.")).toMatchObject({
      _tag: "Replaced",
      added: [{ key: "eli" }]
    })
    expect(summariesDiffer(a, "Fixed the parser for release 2.5 with Dana.")).toMatchObject({ _tag: "Replaced" })
  })
})
