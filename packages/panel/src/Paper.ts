/**
 * Paper the accountant asks for, as PDF files made with pdfkit (standard Helvetica, WinAnsi: every
 * Portuguese letter), always in pt-BR: the receipt (comprovante) of a paid charge (with its
 * refunds, partial ones included), of a payout and of a refund, and the monthly statement
 * (extrato) of the available balance, with the opening and closing balances read from the
 * ledger and one line per movement (fees apart, as in the OFX), so the opening balance plus the
 * lines is the closing balance to the centavo.
 *
 * Each document is first a plain model (`Paper`: title, fields, table rows, totals), which the
 * tests compare with the ledger after reading the PDF's text back, then drawn by `render`.
 * pdfkit (with its font and compression code, several megabytes once loaded) is imported on the
 * first document drawn, not when the panel starts.
 */
import type { Domain, Money } from "@pixgate/core"
import type PDFDocument from "pdfkit"
import { localClock, localDate, money, saoPaulo } from "./I18n.js"
import { statusLabel, typeLabel } from "./Messages.js"
import { has, document as maskedDocument } from "./Receipt.js"

/** A document before it is drawn. */
export interface Paper {
  /** The file's title (also the PDF's Title). */
  readonly title: string
  /** Lines under the title: who issues it, the mode. */
  readonly subtitle: ReadonlyArray<string>
  /** The big amount of a receipt, if any. */
  readonly amount?: string
  /** Label and value pairs. */
  readonly fields: ReadonlyArray<readonly [string, string]>
  /** A table: its heading, columns and rows (the last column is right-aligned). */
  readonly table?: {
    readonly heading: string
    readonly columns: ReadonlyArray<string>
    readonly rows: ReadonlyArray<ReadonlyArray<string>>
  }
  /** Label and value pairs after the table (totals). */
  readonly totals?: ReadonlyArray<readonly [string, string]>
  readonly footer: string
}

const brl = (cents: number) => money("pt-BR", cents)
const at = (ms: number) => `${localDate(ms)} ${localClock(ms)}`
const modeWord = (mode: Domain.Mode) => (mode === "live" ? "Produção" : "Teste (sandbox, sem valor real)")
const footer = (issuer: string) =>
  `Documento emitido por ${issuer}. Horários de Brasília (America/Sao_Paulo). CPF mascarado como nos comprovantes bancários.`

const party = (name: string | null, doc: string | null): string =>
  [name, maskedDocument(doc)].filter((x): x is string => x !== null && x !== "").join(" · ") || "—"

/** Who issues a document: the merchant and the product's name. */
export interface Issuer {
  readonly merchantName: string
  readonly productName: string
}

const issuerText = (i: Issuer) => `${i.merchantName} · ${i.productName}`

/** Whether a transaction has a PDF receipt: a paid charge (refunded or not) or a completed payout. */
export const hasReceipt = (tx: Pick<Domain.Transaction, "type" | "status" | "failureReason">): boolean =>
  has(tx)

/** A devolução the bank performed on its own for a MED infraction, as a receipt lists it. */
export interface BankReturn {
  /** The bank's id of the returned PIX (`rtrId`). */
  readonly id: string
  readonly returnedAt: number
  /** `MED_FRAUDE` or `MED_OPERACIONAL`. */
  readonly nature: string
  readonly amount: number
}

const natureWord = (nature: string): string =>
  nature === "MED_FRAUDE"
    ? "Devolvida pelo banco (MED, fraude)"
    : "Devolvida pelo banco (MED, falha operacional)"

/**
 * A paid charge's or completed payout's receipt; a charge's refunds (partial ones too) and the
 * devoluções its bank performed for MED infractions are on it.
 */
export const transactionReceipt = (
  tx: Domain.Transaction,
  refunds: ReadonlyArray<Domain.Refund>,
  issuer: Issuer,
  bankReturns: ReadonlyArray<BankReturn> = []
): Paper => {
  const payout = tx.type === "withdrawal"
  const when = tx.paidAt ?? tx.updatedAt
  const counted = refunds.filter((r) => r.status !== "failed")
  const refunded = counted.reduce((n, r) => n + r.amount, 0) + bankReturns.reduce((n, r) => n + r.amount, 0)
  const received = tx.receivedAmount ?? tx.amount
  const fields: Array<readonly [string, string]> = [
    ["Tipo", `${typeLabel("pt-BR", tx.type)} · ${statusLabel("pt-BR", tx.type, tx.status)}`],
    ["Data e hora", at(when)],
    ["Pagador", payout ? issuer.merchantName : party(tx.clientName, tx.clientDocument)],
    ["Recebedor", payout ? `Chave PIX: ${tx.pixKey ?? "—"}` : issuer.merchantName],
    ["ID fim a fim (E2E)", tx.endToEndId ?? "—"],
    ...(tx.txid === null ? [] : [["Identificador da cobrança (txid)", tx.txid] as const]),
    ["ID da transação", tx.id],
    ...(tx.description === null ? [] : [["Descrição", tx.description] as const]),
    ["Tarifa", brl(tx.feeAmount)],
    ["Modo", modeWord(tx.mode)]
  ]
  const refundPart: Pick<Paper, "table" | "totals"> =
    payout || refunds.length + bankReturns.length === 0
      ? {}
      : {
          table: {
            heading: "Devoluções desta cobrança",
            columns: ["Devolução", "Data e hora", "Status", "Valor"],
            rows: [
              ...refunds.map((r) => [
                r.id,
                at(r.createdAt),
                statusLabel("pt-BR", "refund", r.status),
                brl(-r.amount)
              ]),
              ...bankReturns.map((r) => [r.id, at(r.returnedAt), natureWord(r.nature), brl(-r.amount)])
            ]
          },
          totals: [
            ["Valor recebido", brl(received)],
            ["Total devolvido", brl(-refunded)],
            ["Valor mantido após devoluções", brl(received - refunded)]
          ]
        }
  return {
    title: payout ? "Comprovante de saque PIX" : "Comprovante de recebimento PIX",
    subtitle: [issuerText(issuer)],
    amount: brl(payout ? tx.amount : received),
    fields,
    ...refundPart,
    footer: footer(issuer.productName)
  }
}

/** A refund's receipt (the money returned to the payer of the charge). */
export const refundReceipt = (refund: Domain.Refund, charge: Domain.Transaction, issuer: Issuer): Paper => ({
  title: "Comprovante de devolução PIX",
  subtitle: [issuerText(issuer)],
  amount: brl(refund.amount),
  fields: [
    ["Status", statusLabel("pt-BR", "refund", refund.status)],
    ["Data e hora", at(refund.updatedAt)],
    ["Devolvido por", issuer.merchantName],
    ["Devolvido a", party(charge.clientName, charge.clientDocument)],
    ["ID da devolução", refund.id],
    ["ID da devolução no banco (rtrId)", refund.returnId ?? "—"],
    ["Cobrança devolvida", charge.id],
    ["ID fim a fim da cobrança (E2E)", charge.endToEndId ?? "—"],
    ["Valor da cobrança", brl(charge.receivedAmount ?? charge.amount)],
    ...(refund.description === null ? [] : [["Descrição", refund.description] as const]),
    ...(refund.failureReason === null ? [] : [["Motivo da falha", refund.failureReason] as const]),
    ["Modo", modeWord(charge.mode)]
  ],
  footer: footer(issuer.productName)
})

/** One line of a statement: São Paulo date and time, what happened, signed centavos. */
export interface StatementRow {
  readonly postedAt: number
  readonly memo: string
  readonly amount: number
}

/** A month's statement: `month` is `YYYY-MM` in São Paulo; the balances are the ledger's. */
export const statement = (
  input: {
    readonly month: string
    readonly mode: Domain.Mode
    readonly opening: Money.Cents | number
    readonly closing: Money.Cents | number
    readonly rows: ReadonlyArray<StatementRow>
    readonly until: number
  },
  issuer: Issuer
): Paper => {
  const credits = input.rows.filter((r) => r.amount > 0).reduce((n, r) => n + r.amount, 0)
  const debits = input.rows.filter((r) => r.amount < 0).reduce((n, r) => n + r.amount, 0)
  const [year, month] = input.month.split("-")
  return {
    title: `Extrato mensal · ${month}/${year}`,
    subtitle: [issuerText(issuer), `Saldo disponível · ${modeWord(input.mode)} · até ${at(input.until)}`],
    fields: [["Saldo inicial", brl(input.opening)]],
    table: {
      heading: "Movimentações",
      columns: ["Data", "Hora", "Descrição", "Valor"],
      rows: input.rows.map((r) => [localDate(r.postedAt), localClock(r.postedAt), r.memo, brl(r.amount)])
    },
    totals: [
      ["Entradas", brl(credits)],
      ["Saídas", brl(debits)],
      ["Saldo final", brl(input.closing)]
    ],
    footer: footer(issuer.productName)
  }
}

/** The São Paulo month `YYYY-MM` of an instant. */
export const monthOf = (ms: number): string => {
  const p = saoPaulo(ms)
  return `${p.year}-${p.month}`
}

/** A document's table: its heading, the columns' names, then a row per line (a new page when full). */
const table = (doc: InstanceType<typeof PDFDocument>, t: NonNullable<Paper["table"]>, width: number) => {
  doc.moveDown(0.8).font("Helvetica-Bold").fontSize(11).text(t.heading, 50)
  doc.moveDown(0.3)
  // Column widths: the description column takes what the others leave.
  const widths =
    t.columns.length === 4 && t.columns[2] === "Descrição"
      ? [60, 45, width - 195, 90]
      : [190, 95, 80, width - 365]
  const row = (cells: ReadonlyArray<string>, bold: boolean) => {
    if (doc.y > doc.page.height - 90) doc.addPage()
    const y = doc.y
    let x = 50
    let bottom = y
    cells.forEach((cell, i) => {
      const w = widths[i] ?? 80
      doc
        .font(bold ? "Helvetica-Bold" : "Helvetica")
        .fontSize(8)
        .text(cell, x, y, { width: w - 6, align: i === cells.length - 1 ? "right" : "left" })
      bottom = Math.max(bottom, doc.y)
      x += w
    })
    doc.y = bottom + 3
    doc.x = 50
  }
  row(t.columns, true)
  for (const r of t.rows) row(r, false)
  if (t.rows.length === 0) doc.font("Helvetica").fontSize(9).text("Nenhuma movimentação no período.", 50)
}

let pdfkit: Promise<typeof PDFDocument> | undefined

/** pdfkit's document class, imported once, on first use (a failed import is tried again next time). */
const loadPdfkit = (): Promise<typeof PDFDocument> => {
  pdfkit ??= import("pdfkit").then(
    (m) => m.default,
    (error: unknown) => {
      pdfkit = undefined
      throw error
    }
  )
  return pdfkit
}

/** Draws a document as a PDF (A4, Helvetica). */
export const render = async (paper: Paper): Promise<Uint8Array> => draw(await loadPdfkit(), paper)

const draw = (Document: typeof PDFDocument, paper: Paper): Promise<Uint8Array> =>
  new Promise((resolve, reject) => {
    const doc = new Document({
      size: "A4",
      margin: 50,
      lang: "pt-BR",
      info: { Title: paper.title, Creator: "Pixgate", Producer: "Pixgate (pdfkit)" },
      displayTitle: true
    })
    const chunks: Array<Uint8Array> = []
    doc.on("data", (c: Uint8Array) => chunks.push(c))
    doc.on("error", reject)
    doc.on("end", () => {
      const size = chunks.reduce((n, c) => n + c.length, 0)
      const out = new Uint8Array(size)
      let offset = 0
      for (const c of chunks) {
        out.set(c, offset)
        offset += c.length
      }
      resolve(out)
    })
    const width = doc.page.width - 100
    doc.font("Helvetica-Bold").fontSize(16).text(paper.title)
    doc.font("Helvetica").fontSize(9).fillColor("#555555")
    for (const line of paper.subtitle) doc.text(line)
    doc.fillColor("#000000").moveDown(0.8)
    if (paper.amount !== undefined) doc.font("Helvetica-Bold").fontSize(22).text(paper.amount).moveDown(0.5)
    const pairs = (list: ReadonlyArray<readonly [string, string]>, bold = false) => {
      for (const [label, value] of list) {
        const y = doc.y
        doc.font("Helvetica-Bold").fontSize(9).text(`${label}:`, 50, y, { width: 170 })
        const after = doc.y
        doc
          .font(bold ? "Helvetica-Bold" : "Helvetica")
          .fontSize(9)
          .text(value, 225, y, { width: width - 175 })
        doc.y = Math.max(after, doc.y) + 3
        doc.x = 50
      }
    }
    pairs(paper.fields)
    if (paper.table !== undefined) table(doc, paper.table, width)
    if (paper.totals !== undefined) {
      doc.moveDown(0.6)
      pairs(paper.totals, true)
    }
    doc
      .moveDown(1.5)
      .font("Helvetica")
      .fontSize(7)
      .fillColor("#555555")
      .text(paper.footer, 50, doc.y, { width })
    doc.end()
  })
