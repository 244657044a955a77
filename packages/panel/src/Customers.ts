/**
 * Customers (issue 38): the payers gathered from the merchant's charges of the current mode,
 * one per CPF/CNPJ (or, without a document, per normalised name), with their charges and totals;
 * and the searches by payer name, description and CPF/CNPJ that the transactions list and the
 * customers page share.
 *
 * Names and documents are sealed at rest in the SQL stores (AES-GCM per value, see
 * `packages/store-sql/src/internal/vault.ts`), so the database cannot compare them:
 * - a CPF/CNPJ is searched through the store's keyed lookup (`TransactionQuery.document`: an
 *   HMAC-SHA256 under the lookup key, `client_document_hash`), exact, over the whole history;
 * - a name or description is matched here, accent- and case-insensitively by word prefixes, over
 *   the merchant's most recent `scanLimit` charges, read (and opened) through the store as any
 *   page does. docs/decisions.md ("Customers and search over sealed names") says why no name
 *   index is kept in the database.
 */
import { Document, type Domain, type Errors, Store } from "@pixgate/core"
import { Effect, Either, Option } from "effect"
import { lift, type Signed } from "./Ctx.js"

/** Charges read through the store. */
type Charges = Effect.Effect<ReadonlyArray<Domain.Transaction>, Errors.PixgateError, Store.Store>

/** The most recent charges a name or description search, and the customers list, read. */
export const scanLimit = 2000

/** Lower case, accents off, words of letters and digits. */
export const words = (text: string): ReadonlyArray<string> =>
  text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "")

/** Whether every word of the query starts a word of the text (accents and case aside). */
export const matchesText = (query: string, text: string | null): boolean => {
  if (text === null) return false
  const q = words(query)
  const t = words(text)
  return q.length > 0 && q.every((w) => t.some((x) => x.startsWith(w)))
}

/** A real payer's name or document (not the erasure marker). */
const present = (v: string | null): v is string => v !== null && v !== "" && v !== "[erased]"

/** The normalised CPF/CNPJ a search text is, if it is one. */
export const documentOf = (text: string): string | undefined => {
  const parsed = Document.parse(text)
  return Either.isRight(parsed) ? parsed.right.value : undefined
}

/** The merchant's charges of the current mode, newest first, at most `scanLimit`. */
export const recentCharges = (
  s: Signed
): Effect.Effect<
  ReadonlyArray<Domain.Transaction>,
  import("@pixgate/core").Errors.PixgateError,
  Store.Store
> =>
  lift(
    Effect.gen(function* () {
      const st = yield* Store.Store
      const out: Array<Domain.Transaction> = []
      let before: { readonly createdAt: number; readonly id: string } | undefined
      while (out.length < scanLimit) {
        const page = yield* st.listTransactions({
          merchantId: s.merchant.id,
          mode: s.mode,
          type: "deposit",
          offset: 0,
          limit: Math.min(200, scanLimit - out.length),
          countTotal: false,
          ...(before === undefined ? {} : { before })
        })
        out.push(...page.rows)
        const last = page.rows[page.rows.length - 1]
        if (last === undefined || page.rows.length < 200) break
        before = { createdAt: last.createdAt, id: last.id }
      }
      return out
    })
  )

/** The charges of one CPF/CNPJ (the store's keyed lookup), newest first. */
export const chargesOfDocument = (s: Signed, document: string): Charges =>
  lift(
    Effect.flatMap(Store.Store, (st) =>
      st.listTransactions({ merchantId: s.merchant.id, mode: s.mode, document, offset: 0, limit: 500 })
    )
  ).pipe(Effect.map((page) => page.rows))

/**
 * The transactions a search text finds by payer or description: by CPF/CNPJ through the keyed
 * lookup, by name or description words (a text with a letter) among the recent charges.
 */
export const search = (s: Signed, text: string): Charges =>
  Effect.gen(function* () {
    const document = documentOf(text)
    if (document !== undefined) return yield* chargesOfDocument(s, document)
    // Words with a letter: a number alone is an amount or an id, which the list searches itself.
    if (!/\p{L}/u.test(text) || words(text).length === 0) return []
    const recent = yield* recentCharges(s)
    return recent.filter((tx) => matchesText(text, tx.clientName) || matchesText(text, tx.description))
  })

/** One customer: a payer gathered from charges. */
export interface Customer {
  /** The customer's page id: its oldest charge's id (no personal data in URLs or logs). */
  readonly id: string
  readonly name: string | null
  readonly document: string | null
  /** Charges carry no e-mail today: always null (kept for when they do). */
  readonly email: string | null
  readonly charges: number
  readonly paid: number
  readonly paidCents: number
  readonly lastAt: number
}

const keyOf = (tx: Domain.Transaction): string | undefined =>
  present(tx.clientDocument)
    ? `doc:${tx.clientDocument}`
    : present(tx.clientName)
      ? `name:${words(tx.clientName).join(" ")}`
      : undefined

/** Charges grouped into customers, the most recent first. */
export const gather = (charges: ReadonlyArray<Domain.Transaction>): ReadonlyArray<Customer> => {
  const groups = new Map<string, Array<Domain.Transaction>>()
  for (const tx of charges) {
    const key = keyOf(tx)
    if (key === undefined) continue
    const list = groups.get(key) ?? []
    list.push(tx)
    groups.set(key, list)
  }
  return [...groups.values()]
    .map((txs) => {
      const sorted = [...txs].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      const oldest = sorted[0] as Domain.Transaction
      const newest = sorted[sorted.length - 1] as Domain.Transaction
      const paid = sorted.filter((t) => t.type === "deposit" && t.status === "completed")
      return {
        id: oldest.id,
        name:
          [...sorted]
            .reverse()
            .map((t) => t.clientName)
            .find(present) ?? null,
        document: present(newest.clientDocument) ? newest.clientDocument : null,
        email: null,
        charges: sorted.length,
        paid: paid.length,
        paidCents: paid.reduce((sum, t) => sum + t.amount, 0),
        lastAt: newest.createdAt
      }
    })
    .sort((a, b) => b.lastAt - a.lastAt)
}

/** A customer's charges, from the charge its id names: by document (keyed lookup) or by name. */
export const chargesOf = (
  s: Signed,
  id: string
): Effect.Effect<ReadonlyArray<Domain.Transaction> | undefined, Errors.PixgateError, Store.Store> =>
  Effect.gen(function* () {
    const st = yield* lift(Store.Store)
    const first = yield* lift(
      Effect.flatMap(Effect.succeed(id), (raw) =>
        /^tx_[A-Za-z0-9]{10,60}$/.test(raw)
          ? st.getTransaction(raw as Domain.TransactionId)
          : Effect.succeedNone
      )
    )
    if (Option.isNone(first) || first.value.merchantId !== s.merchant.id || first.value.mode !== s.mode)
      return undefined
    const tx = first.value
    if (present(tx.clientDocument)) return yield* chargesOfDocument(s, tx.clientDocument)
    const key = keyOf(tx)
    if (key === undefined) return [tx]
    return (yield* recentCharges(s)).filter((t) => keyOf(t) === key)
  })
