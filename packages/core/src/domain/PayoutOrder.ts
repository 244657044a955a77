/**
 * A payout as the merchant orders it, in the domain's terms: the amount in centavos, the
 * recipient's PIX key parsed into its DICT form, the optional texts trimmed. The request is
 * decoded into one once, at the edge (`Requests.CreatePayout`, with the engine's maximum
 * amount), and the payouts service takes it as it is: no second parse (it only compares the
 * amount with the engine's configured maximum once more, for an order decoded without it).
 */
import type { Brand } from "effect"
import type { Cents } from "./Money.js"
import type { PixKey } from "./PixKey.js"

/** The brand only the request's decoder gives: a hand-built object is not an order. */
export const brand = "PayoutOrder"

/**
 * A decoded payout request: `amount` at least one centavo and at most the engine's maximum,
 * `pixKey` a valid key, `clientDocument` a CPF or CNPJ's digits, texts of at most 140 characters.
 */
export type PayoutOrder = Brand.Brand<typeof brand> & {
  readonly amount: Cents
  readonly pixKey: PixKey
  readonly clientName?: string
  readonly clientDocument?: string
  readonly description?: string
}
