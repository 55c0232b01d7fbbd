import type { FilesProjection } from "../kernel/Stream.js"
import { EXTENDED_DIR } from "./files.js"
import {
  isEmptyUserModel,
  scanLoadedModel,
  type UserModel,
  type UserModelEvent,
  UserModelImported,
  userModelJson
} from "./userModel.js"

/** Where odek keeps the user model, relative to the memory directory (spec extended §6, §14.1). */
export const USER_MODEL_FILE = `${EXTENDED_DIR}/user_model.json`

/**
 * `user_model.json` as odek writes it (§14.1, `json.MarshalIndent` with two spaces, no trailing newline): unset
 * style, focus and follow-up members omitted, lists always present, `pending_review` null when the queue is empty
 * (odek's nil slice), an entry without a timestamp written with Go's zero time so odek can read the file back.
 */
export const renderUserModelJson = (m: UserModel): string => JSON.stringify(userModelJson(m), null, 2)

/**
 * `extended/user_model.json` as the projection of the `user_model` stream: written, never read back as state (an
 * agent can write there). An odek file found without history is adopted once, scanned (§14.7); an unreadable or
 * corrupt one adopts nothing (odek's load fails and the model stays empty, §6.4). The adoption applies no age or cap
 * rule (a projection knows no policy): the app's `ExpirePending` on load does (§14.6 Rec).
 */
export const userModelFiles: FilesProjection<UserModel, UserModelEvent> = {
  manifest: USER_MODEL_FILE,
  directories: [EXTENDED_DIR],
  render: (model) => new Map([[USER_MODEL_FILE, renderUserModelJson(model)]]),
  imported: (read, at) => {
    const text = read(USER_MODEL_FILE)
    if (text === undefined || text.trim() === "") return []
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return []
    }
    const model = scanLoadedModel(json)
    return isEmptyUserModel(model) ? [] : [UserModelImported.make({ model, at })]
  }
}
