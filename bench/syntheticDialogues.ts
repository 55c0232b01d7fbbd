/**
 * A synthetic recall dataset in the neutral format of `tmem eval recall`, generated from a seed so every run (and
 * every machine) measures the same thing without external data. Each conversation is a chat between two people
 * over several sessions; each session is about one topic (a sailing course, a new job, an adopted pet…) with
 * names, numbers and places in it, wrapped in the greetings and small talk that every session shares. Questions
 * ask for one fact of one session (category 1), a fact of a topic's later session that names the earlier one
 * (category 2: both sessions are evidence), or a session's date (category 3); a few unrelated queries have no
 * evidence at all.
 */

/** mulberry32: small, fast, and the same sequence everywhere. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

interface Rng {
  readonly int: (min: number, max: number) => number
  readonly pick: <T>(xs: ReadonlyArray<T>) => T
  /** Pops a random element, so a conversation never uses a name or place twice. */
  readonly take: <T>(xs: Array<T>) => T
}

const rngOf = (seed: number): Rng => {
  const next = prng(seed)
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return { int, pick: (xs) => xs[int(0, xs.length - 1)]!, take: (xs) => xs.splice(int(0, xs.length - 1), 1)[0]! }
}

const PEOPLE = [
  ["Ada", "Ben"],
  ["Chen", "Dora"],
  ["Emil", "Farah"],
  ["Gus", "Hana"],
  ["Ines", "Jonas"],
  ["Kofi", "Lena"],
  ["Mila", "Nico"],
  ["Omar", "Pia"]
] as const
const NAMES = [
  "Marta Olsen",
  "Tariq Haddad",
  "Ingrid Berg",
  "Kenji Mori",
  "Lucía Vega",
  "Amara Okafor",
  "Piotr Nowak",
  "Noor Rahman",
  "Élodie Roux",
  "Hamid Karimi",
  "Sven Lund",
  "Priya Nair",
  "Mateo Ruiz",
  "Yara Haddad",
  "Bjørn Dahl",
  "Zofia Kral",
  "Aiko Sato",
  "Rafael Costa"
]
const PLACES = [
  "Kiel",
  "Porto",
  "Tromsø",
  "Oaxaca",
  "Lyon",
  "Busan",
  "Tartu",
  "Cork",
  "Zadar",
  "Ghent",
  "Valparaíso",
  "Graz",
  "Aarhus",
  "Bergen",
  "Nara",
  "Cusco",
  "Split",
  "Leeds"
]
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December"
]

/** One topic's session: the speaker A and B turns carrying its facts, and questions about them. */
interface TopicSession {
  readonly turns: ReadonlyArray<readonly ["A" | "B", string]>
  readonly questions: ReadonlyArray<{ readonly q: string; readonly answer: string }>
}

/** A topic: its first session, and a later one that comes back to it (asked about together with the first). */
interface Topic {
  /** How the date question names the topic: "When did Ada tell Ben about <label>?" */
  readonly label: string
  readonly first: (
    a: string,
    r: Rng,
    name: () => string,
    place: () => string
  ) => TopicSession & { readonly followUp: () => TopicSession }
}

const TOPICS: ReadonlyArray<Topic> = [
  {
    label: "the sailing course",
    first: (a, r, name, place) => {
      const [where, who, feet] = [place(), name(), r.int(9, 16)]
      return {
        turns: [
          ["A", `I finally booked a sailing course in ${where} for the summer.`],
          ["B", "Oh nice, what kind of boat?"],
          ["A", `A small dinghy, ${feet} feet long. The instructor is ${who}.`],
          ["B", "Take a warm jacket, the wind is cold out there."]
        ],
        questions: [
          { q: `Where did ${a} book a sailing course?`, answer: where },
          { q: `Who is ${a}'s sailing instructor?`, answer: who },
          { q: `How long is the dinghy ${a} sails?`, answer: `${feet} feet` }
        ],
        followUp: () => {
          const score = r.int(70, 99)
          return {
            turns: [
              ["A", `Remember the sailing course in ${where}? I passed the final exam with ${score} points!`],
              ["B", "Congratulations, that is a great score."]
            ],
            questions: [
              { q: `What score did ${a} get on the exam of the sailing course in ${where}?`, answer: `${score} points` }
            ]
          }
        }
      }
    }
  },
  {
    label: "the rye bread",
    first: (a, r, name, place) => {
      const [grams, aunt, town] = [r.int(3, 9) * 50, name(), place()]
      return {
        turns: [
          ["A", `I baked rye bread with caraway, the recipe needs ${grams} grams of rye flour.`],
          ["B", "Where did you get the recipe?"],
          ["A", `From my aunt ${aunt}, she ran a bakery in ${town}.`],
          ["B", "Save me a slice next time."]
        ],
        questions: [
          { q: `How much rye flour does ${a}'s bread recipe need?`, answer: `${grams} grams` },
          { q: `Who gave ${a} the rye bread recipe?`, answer: aunt },
          { q: `Where was the bakery of ${a}'s aunt?`, answer: town }
        ],
        followUp: () => {
          const loaves = r.int(3, 12)
          return {
            turns: [
              ["A", `I used the recipe from aunt ${aunt} again and sold ${loaves} loaves at the market.`],
              ["B", "You should open your own bakery."]
            ],
            questions: [
              {
                q: `How many loaves did ${a} sell with the recipe from the aunt who ran a bakery in ${town}?`,
                answer: `${loaves} loaves`
              }
            ]
          }
        }
      }
    }
  },
  {
    label: "adopting a pet",
    first: (a, r, _name, place) => {
      const [pet, animal, age, shelter] = [
        r.pick(["Pepper", "Biscuit", "Mango", "Juniper", "Pixel"]),
        r.pick(["cat", "dog", "rabbit"]),
        r.int(2, 9),
        place()
      ]
      return {
        turns: [
          ["A", `Big news: I adopted a ${animal} from the shelter in ${shelter}.`],
          ["B", "What is its name?"],
          ["A", `Her name is ${pet} and she is ${age} years old.`],
          ["B", `${pet} is a lovely name!`]
        ],
        questions: [
          { q: `What is the name of the ${animal} ${a} adopted?`, answer: pet },
          { q: `How old is ${a}'s ${animal}?`, answer: `${age} years old` },
          { q: `Where was the shelter ${a} adopted a pet from?`, answer: shelter }
        ],
        followUp: () => {
          const vet = _name()
          return {
            turns: [
              ["A", `${pet} was sick last week, the vet ${vet} gave her antibiotics.`],
              ["B", "Poor thing, I hope she gets better soon."]
            ],
            questions: [{ q: `Which vet treated the ${animal} ${a} adopted in ${shelter}?`, answer: vet }]
          }
        }
      }
    }
  },
  {
    label: "the half marathon",
    first: (a, r, name, place) => {
      const [city, minutes, friend] = [place(), r.int(95, 150), name()]
      return {
        turns: [
          ["A", `I ran the half marathon in ${city} last weekend.`],
          ["B", "Wow! How did it go?"],
          ["A", `I finished in ${minutes} minutes, running together with ${friend}.`],
          ["B", "That is a solid time."]
        ],
        questions: [
          { q: `Where did ${a} run a half marathon?`, answer: city },
          { q: `What was ${a}'s half marathon time?`, answer: `${minutes} minutes` },
          { q: `Who ran the half marathon with ${a}?`, answer: friend }
        ],
        followUp: () => {
          const shoes = r.pick(["Hoka", "Asics", "Brooks", "Saucony"])
          return {
            turns: [
              ["A", `After the ${city} half marathon my knees hurt, so I bought new ${shoes} shoes.`],
              ["B", "Good idea, old shoes ruin your knees."]
            ],
            questions: [{ q: `Which shoe brand did ${a} buy after the half marathon in ${city}?`, answer: shoes }]
          }
        }
      }
    }
  },
  {
    label: "the new job",
    first: (a, r, name, place) => {
      const [company, city, manager, team] = [
        r.pick(["Nordlicht Labs", "Bluefin Robotics", "Quarry Systems", "Oakridge Analytics"]),
        place(),
        name(),
        r.int(4, 30)
      ]
      return {
        turns: [
          ["A", `I started a new job at ${company} in ${city}.`],
          ["B", "Congrats! How is the team?"],
          ["A", `There are ${team} people on the team and my manager is ${manager}.`],
          ["B", "Sounds like a good place."]
        ],
        questions: [
          { q: `Where does ${a} work now?`, answer: company },
          { q: `Who is ${a}'s manager at the new job?`, answer: manager },
          { q: `How many people are on ${a}'s new team?`, answer: `${team} people` }
        ],
        followUp: () => {
          const project = r.pick(["Atlas", "Heron", "Lantern", "Meridian"])
          return {
            turns: [
              ["A", `At ${company} I now lead project ${project}, a data pipeline.`],
              ["B", "Leading already, impressive."]
            ],
            questions: [{ q: `Which project does ${a} lead at the company in ${city}?`, answer: project }]
          }
        }
      }
    }
  },
  {
    label: "the concert",
    first: (a, r, name, place) => {
      const [band, city, euros, friend] = [
        r.pick(["The Lumineers", "Arctic Monkeys", "Khruangbin", "Fleet Foxes"]),
        place(),
        r.int(35, 120),
        name()
      ]
      return {
        turns: [
          ["A", `I saw ${band} live in ${city}!`],
          ["B", "Lucky you. Were the tickets expensive?"],
          ["A", `${euros} euros each, I went with ${friend}.`],
          ["B", "Worth every cent, I bet."]
        ],
        questions: [
          { q: `Which band did ${a} see live?`, answer: band },
          { q: `How much did the concert tickets cost?`, answer: `${euros} euros` },
          { q: `Who went to the concert with ${a}?`, answer: friend }
        ],
        followUp: () => {
          const song = r.pick(["Ophelia", "Do I Wanna Know", "Time", "Mykonos"])
          return {
            turns: [
              ["A", `I still listen to ${song} every day since the concert in ${city}.`],
              ["B", "That song is stuck in my head too now."]
            ],
            questions: [{ q: `Which song does ${a} play every day since the concert in ${city}?`, answer: song }]
          }
        }
      }
    }
  },
  {
    label: "the language lessons",
    first: (a, r, name, place) => {
      const [language, tutor, lessons, city] = [
        r.pick(["Portuguese", "Korean", "Estonian", "Croatian"]),
        name(),
        r.int(8, 40),
        place()
      ]
      return {
        turns: [
          ["A", `I am learning ${language} with a tutor called ${tutor}.`],
          ["B", "How is it going?"],
          ["A", `I have had ${lessons} lessons so far, and I want to visit ${city} next year.`],
          ["B", "You will be fluent by then."]
        ],
        questions: [
          { q: `Which language is ${a} learning?`, answer: language },
          { q: `Who is ${a}'s language tutor?`, answer: tutor },
          { q: `How many language lessons has ${a} had?`, answer: `${lessons} lessons` }
        ],
        followUp: () => {
          const level = r.pick(["A2", "B1", "B2"])
          return {
            turns: [
              ["A", `I passed the ${level} exam in ${language}, ${tutor} was so proud.`],
              ["B", "Well done, all those lessons paid off."]
            ],
            questions: [{ q: `Which exam level did ${a} pass in the language taught by ${tutor}?`, answer: level }]
          }
        }
      }
    }
  },
  {
    label: "the car breakdown",
    first: (a, r, name, place) => {
      const [mechanic, town, part, cost] = [
        name(),
        place(),
        r.pick(["alternator", "clutch", "water pump", "starter motor"]),
        r.int(180, 900)
      ]
      return {
        turns: [
          ["A", `My car broke down near ${town}.`],
          ["B", "Oh no, what happened?"],
          ["A", `The mechanic, ${mechanic}, said the ${part} failed. The repair costs ${cost} euros.`],
          ["B", "Ouch, that is a lot."]
        ],
        questions: [
          { q: `What part failed in ${a}'s car?`, answer: part },
          { q: `How much did ${a}'s car repair cost?`, answer: `${cost} euros` },
          { q: `Who repaired ${a}'s car?`, answer: mechanic }
        ],
        followUp: () => {
          const km = r.int(200, 2000)
          return {
            turns: [
              ["A", `Since ${mechanic} replaced the ${part}, I drove ${km} kilometres without trouble.`],
              ["B", "Good mechanics are rare."]
            ],
            questions: [{ q: `How far has ${a} driven since the repair near ${town}?`, answer: `${km} kilometres` }]
          }
        }
      }
    }
  },
  {
    label: "buying an instrument",
    first: (a, r, name, place) => {
      const [instrument, price, seller, city] = [
        r.pick(["cello", "banjo", "trumpet", "harp"]),
        r.int(150, 1400),
        name(),
        place()
      ]
      return {
        turns: [
          ["A", `I bought a second-hand ${instrument} for ${price} euros.`],
          ["B", "From a shop?"],
          ["A", `From ${seller}, a retired musician in ${city}.`],
          ["B", "Play me something soon."]
        ],
        questions: [
          { q: `Which instrument did ${a} buy?`, answer: instrument },
          { q: `How much did ${a} pay for the ${instrument}?`, answer: `${price} euros` },
          { q: `Who sold ${a} the ${instrument}?`, answer: seller }
        ],
        followUp: () => {
          const piece = r.pick(["a Bach suite", "a bluegrass reel", "a Haydn concerto", "a Celtic air"])
          return {
            turns: [
              ["A", `I can finally play ${piece} on the ${instrument} from ${seller}.`],
              ["B", "I would love to hear it."]
            ],
            questions: [{ q: `What can ${a} play on the instrument bought in ${city}?`, answer: piece }]
          }
        }
      }
    }
  },
  {
    label: "the book club",
    first: (a, r, name, place) => {
      const [book, author, members, day] = [
        r.pick(["The Salt Road", "Winter Orchard", "Glass Harbour", "The Ninth Lantern"]),
        name(),
        r.int(5, 15),
        r.pick(["Monday", "Wednesday", "Thursday"])
      ]
      void place
      return {
        turns: [
          ["A", `My book club is reading ${book} by ${author}.`],
          ["B", "Is it good?"],
          ["A", `Very. We are ${members} members and meet every ${day}.`],
          ["B", "Maybe I should join."]
        ],
        questions: [
          { q: `Which book is ${a}'s book club reading?`, answer: book },
          { q: `Who wrote the book ${a}'s club is reading?`, answer: author },
          { q: `On which day does ${a}'s book club meet?`, answer: day }
        ],
        followUp: () => {
          const stars = r.int(2, 5)
          return {
            turns: [
              ["A", `We finished ${book}; the club gave it ${stars} stars out of five.`],
              ["B", "Not bad for a club vote."]
            ],
            questions: [{ q: `How many stars did the club give the book by ${author}?`, answer: `${stars} stars` }]
          }
        }
      }
    }
  },
  {
    label: "the tomato plants",
    first: (a, r, name, place) => {
      const [plants, neighbour, variety] = [
        r.int(6, 30),
        name(),
        r.pick(["San Marzano", "Black Krim", "Sungold", "Brandywine"])
      ]
      void place
      return {
        turns: [
          ["A", `I planted ${plants} tomato plants in the garden.`],
          ["B", "Which kind?"],
          ["A", `${variety}, my neighbour ${neighbour} gave me the seeds.`],
          ["B", "Fresh tomatoes all summer then."]
        ],
        questions: [
          { q: `How many tomato plants did ${a} plant?`, answer: `${plants} tomato plants` },
          { q: `Which tomato variety did ${a} plant?`, answer: variety },
          { q: `Who gave ${a} the tomato seeds?`, answer: neighbour }
        ],
        followUp: () => {
          const kilos = r.int(4, 25)
          return {
            turns: [
              ["A", `The ${variety} tomatoes gave ${kilos} kilos this year.`],
              ["B", "Make some sauce with them."]
            ],
            questions: [
              { q: `How many kilos did the tomatoes from ${neighbour}'s seeds give?`, answer: `${kilos} kilos` }
            ]
          }
        }
      }
    }
  },
  {
    label: "the trip",
    first: (a, r, name, place) => {
      const [city, nights, hotel, month] = [
        place(),
        r.int(2, 12),
        r.pick(["Hotel Aurora", "Casa Azul", "The Granary", "Villa Pino"]),
        r.pick(MONTHS)
      ]
      void name
      return {
        turns: [
          ["A", `I booked a trip to ${city} in ${month}.`],
          ["B", "How long will you stay?"],
          ["A", `${nights} nights at ${hotel}.`],
          ["B", "Bring me a postcard."]
        ],
        questions: [
          { q: `Where is ${a} travelling?`, answer: city },
          { q: `How many nights will ${a} stay on the trip?`, answer: `${nights} nights` },
          { q: `Which hotel did ${a} book?`, answer: hotel }
        ],
        followUp: () => {
          const dish = r.pick(["grilled sardines", "bibimbap", "mole negro", "fish soup"])
          return {
            turns: [
              ["A", `Back from ${city}! The best thing I ate was ${dish}.`],
              ["B", "Now I am hungry."]
            ],
            questions: [{ q: `What was the best dish ${a} ate on the trip to ${city}?`, answer: dish }]
          }
        }
      }
    }
  }
]

const GREETINGS: ReadonlyArray<readonly ["A" | "B", string]> = [
  ["A", "Hey {B}! Good to see you! How have you been?"],
  ["B", "Hi {A}! Busy week with work and the kids, but good. What's new with you?"]
]
const SMALL_TALK = [
  "Wow, that's awesome!",
  "Haha, I love that.",
  "Tell me more!",
  "That sounds so fun.",
  "I'm so happy for you!",
  "Really? That's great."
]
const GOODBYES: ReadonlyArray<readonly ["A" | "B", string]> = [
  ["A", "Anyway, I have to go. Talk soon!"],
  ["B", "Bye {A}, take care and have a great week!"]
]

const UNRELATED = [
  "What is the boiling point of mercury?",
  "How do I configure a VPN on my router?",
  "Who won the chess world championship in 1972?",
  "What is the capital of Australia?",
  "How many bones are in the human hand?",
  "Which programming language has a borrow checker?"
]

const formatDate = (d: Date) => {
  const h = d.getUTCHours()
  const m = d.getUTCMinutes().toString().padStart(2, "0")
  return (
    `${h % 12 === 0 ? 12 : h % 12}:${m} ${h < 12 ? "am" : "pm"} ` +
    `on ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}, ${d.getUTCFullYear()}`
  )
}

export interface SyntheticOptions {
  readonly seed?: number
  readonly conversations?: number
  /** Sessions per conversation (topics, plus follow-ups of some of them). */
  readonly sessions?: number
  /** Unrelated queries per conversation. */
  readonly unrelated?: number
}

/** The dataset, as JSON-ready data in the neutral format. */
export const syntheticDialogues = (options: SyntheticOptions = {}) => {
  const { seed = 10, conversations = 4, sessions = 9, unrelated = 2 } = options
  const r = rngOf(seed)
  return {
    conversations: Array.from({ length: conversations }, (_, ci) => {
      const [a, b] = PEOPLE[ci % PEOPLE.length]!
      const names = [...NAMES]
      const places = [...PLACES]
      const topics = [...TOPICS]
      const fill = (s: string) => s.replaceAll("{A}", a).replaceAll("{B}", b)
      let when = Date.UTC(2025, r.int(0, 5), r.int(1, 28), r.int(8, 21), r.int(0, 59))
      const out: { sessions: Array<unknown>; questions: Array<unknown> } = { sessions: [], questions: [] }
      const pending: Array<{ n: number; followUp: () => TopicSession }> = []
      for (let n = 1; n <= sessions; n++) {
        // about one session in three comes back to an earlier topic
        const revisit = pending.length > 0 && (r.int(0, 2) === 0 || topics.length === 0)
        let body: TopicSession
        let evidence: Array<number>
        let label = ""
        if (revisit) {
          const earlier = pending.splice(r.int(0, pending.length - 1), 1)[0]!
          body = earlier.followUp()
          evidence = [earlier.n, n]
        } else {
          const topic = r.take(topics)
          const session = topic.first(
            a,
            r,
            () => r.take(names),
            () => r.take(places)
          )
          pending.push({ n, followUp: session.followUp })
          label = topic.label
          body = session
          evidence = [n]
        }
        const date = formatDate(new Date(when))
        when += r.int(3, 20) * 86_400_000 + r.int(-180, 180) * 60_000
        const chat: Array<readonly ["A" | "B", string]> = [...GREETINGS]
        for (const t of body.turns) {
          chat.push(t)
          if (r.int(0, 2) === 0) chat.push([t[0] === "A" ? "B" : "A", r.pick(SMALL_TALK)])
        }
        chat.push(...GOODBYES)
        out.sessions.push({
          n,
          date,
          turns: chat.map(([who, text]) => ({ speaker: who === "A" ? a : b, text: fill(text) }))
        })
        for (const q of body.questions)
          out.questions.push({ q: q.q, answer: q.answer, category: revisit ? 2 : 1, sessions: evidence })
        const day = /on (\d+ \w+), (\d+)$/.exec(date)!
        if (!revisit && r.int(0, 1) === 0)
          out.questions.push({
            q: `When did ${a} tell ${b} about ${label}?`,
            answer: `${day[1]} ${day[2]}`,
            category: 3,
            sessions: [n]
          })
      }
      for (let i = 0; i < unrelated; i++)
        out.questions.push({ q: UNRELATED[(ci * unrelated + i) % UNRELATED.length]!, answer: "none", sessions: [] })
      return { id: `synthetic-${ci + 1}`, speakers: [a, b], ...out }
    })
  }
}
