/**
 * A due-date charge as the API Pix `cobv` (`PUT /cobv/{txid}`): the engine's terms
 * (`DueDate.DueTerms`, integers) as the standard's `valor` object, each rule with its
 * `modalidade` number and a two-decimal `valorPerc`.
 */
import { type Domain, type DueDate, Money } from "@pixgate/core"

/** `cob` for an immediate charge, `cobv` for a due-date charge: the API Pix resource of it. */
export const kind = (charge: Domain.Transaction): "cob" | "cobv" =>
  charge.dueTerms === null ? "cob" : "cobv"

/** An integer count of hundredths as the standard's `\d{1,10}\.\d{2}`. */
const decimal = (hundredths: number) => Money.formatReais(Money.Cents(hundredths))

const flat = (rule: DueDate.FlatRule) => ({
  modalidade: rule.type === "fixed" ? 1 : 2,
  valorPerc: decimal(rule.value)
})

const interestModalidade: Record<DueDate.InterestType, number> = {
  amountPerDay: 1,
  percentPerDay: 2,
  percentPerMonth: 3,
  percentPerYear: 4,
  amountPerBusinessDay: 5,
  percentPerBusinessDay: 6,
  percentPerMonthBusinessDays: 7,
  percentPerYearBusinessDays: 8
}

const discountModalidade: Record<DueDate.DiscountRule["type"], number> = {
  fixedUntil: 1,
  percentUntil: 2,
  amountPerDayEarly: 3,
  amountPerBusinessDayEarly: 4,
  percentPerDayEarly: 5,
  percentPerBusinessDayEarly: 6
}

const discount = (rule: DueDate.DiscountRule) =>
  "dates" in rule
    ? {
        modalidade: discountModalidade[rule.type],
        descontoDataFixa: rule.dates.map((d) => ({ data: d.until, valorPerc: decimal(d.value) }))
      }
    : { modalidade: discountModalidade[rule.type], valorPerc: decimal(rule.value) }

/** The cobv's `valor`: the original amount and the terms the payer's bank applies. */
export const valor = (original: Money.Cents, terms: DueDate.DueTerms) => ({
  original: Money.formatReais(original),
  ...(terms.fine === null ? {} : { multa: flat(terms.fine) }),
  ...(terms.interest === null
    ? {}
    : {
        juros: {
          modalidade: interestModalidade[terms.interest.type],
          valorPerc: decimal(terms.interest.value)
        }
      }),
  ...(terms.abatement === null ? {} : { abatimento: flat(terms.abatement) }),
  ...(terms.discount === null ? {} : { desconto: discount(terms.discount) })
})
