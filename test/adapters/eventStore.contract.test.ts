import { diskFixture, memoryFixture } from "../support/stores.js"
import { eventStoreContract } from "../contracts/eventStore.js"

eventStoreContract(memoryFixture)
eventStoreContract(diskFixture)
