import { Context, type Effect } from "effect"

/** What a person is asked to approve: the action and the resource string of spec facts §4.3. */
export interface ApprovalRequest {
  readonly action: string
  readonly resource: string
}

/** A human gate in front of mutating memory calls. Answers true to let the call go ahead. */
export class Approval extends Context.Tag("tmem/Approval")<
  Approval,
  { readonly approve: (request: ApprovalRequest) => Effect.Effect<boolean> }
>() {}
