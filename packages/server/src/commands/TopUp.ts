/**
 * Topping up the test balance for `trigger`, only with the person's consent: `--top-up` says
 * yes, else the question is asked at the terminal; with nobody to ask, nothing changes and the
 * command says how to go on.
 */
import { Effect, Option } from "effect"
import { Ask, UsageError } from "./Command.js"
import { reais } from "./Output.js"

/** What a top-up adds: enough for the payout or refund and any fee plan's fee on it. */
export const topUpAmount = 100

/** Succeeds when the person agrees to add `topUpAmount` to a test balance of `available` that does not cover `what`. */
export const consent = (given: boolean, available: number, what: string) =>
  Effect.gen(function* () {
    if (given) return
    const ask = yield* Ask
    const answer = yield* ask(
      `The test balance (${reais(available)}) does not cover ${what}. Top it up with ${reais(topUpAmount)}? [y/N] `
    )
    if (Option.isSome(answer) && /^y(es)?$/i.test(answer.value.trim())) return
    return yield* new UsageError({
      message:
        `the test balance (${reais(available)}) does not cover ${what}; nothing was changed. ` +
        `Run again with --top-up to add ${reais(topUpAmount)} first, or add money with pixgate sandbox topup`
    })
  })
