import { describe } from "vitest"
import { eventStoreContract } from "../../contracts/eventStore.js"
import { pgFixture, runPg } from "../../support/postgres.js"

describe.runIf(runPg)("PostgreSQL", () => {
  eventStoreContract(pgFixture)
})
