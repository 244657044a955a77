/**
 * The panel's downloads, streamed page by page from the store (keyset paging, one page in memory
 * at a time) so a million rows cost the same memory as ten:
 *
 * - the transaction list as CSV, by default in the Brazilian convention a spreadsheet in pt-BR
 *   opens as is (`;` between fields, decimal comma with two places, UTF-8 with BOM, São Paulo
 *   date and time columns, Portuguese headers and values); `international` is `,`, `.`, ISO-8601
 *   UTC and English. The platform's own cost (`gatewayFeeAmount`) is never in it.
 * - the available balance's statement (extrato) as OFX 1.0.2 (SGML), the form Brazilian banks
 *   export and accounting software and GnuCash import: one `STMTTRN` per ledger movement of the
 *   period, fees as movements of their own, `LEDGERBAL` the balance at the period's end, so the
 *   opening balance plus the movements is the closing balance to the centavo.
 */
import { Domain, type Money, RefundStore, Store } from "@pixgate/core"
import { Chunk, Effect, Option, Stream } from "effect"
import { decimal, type Lang, localClock, localDate, saoPaulo, saoPauloOffsetMinutes } from "./I18n.js"
import { fieldLabel, reasonLabel, statusLabel, typeLabel } from "./Messages.js"

/** Rows read from the store per page. */
export const pageSize = 500

// ---- CSV ----

/** `br`: `;`, decimal comma, São Paulo date and time, Portuguese; `international`: `,`, `.`, ISO-8601 UTC, English. */
export type CsvFormat = "br" | "international"

/** Which transactions go in a CSV. */
export interface TransactionFilter {
  readonly merchantId: Domain.MerchantId
  readonly mode: Domain.Mode
  readonly type?: Domain.TransactionType
  readonly status?: Domain.TransactionStatus
  readonly from?: number
  /** Exclusive; the export also stops at the instant it starts, so rows made meanwhile stay out. */
  readonly to?: number
}

/**
 * A row of the CSV: a transaction, or a refund (devolução) of a charge, which is a row of its own
 * right after its charge's, so the money that went back to the payer is in the file.
 */
export type CsvRow =
  | { readonly kind: "tx"; readonly tx: Domain.Transaction }
  | { readonly kind: "refund"; readonly refund: Domain.Refund; readonly charge: Domain.Transaction }

interface Column {
  readonly header: Readonly<Record<CsvFormat, string>>
  readonly value: (row: CsvRow, f: CsvFormat) => string | number | null
  readonly amount?: true
}

const lang = (f: CsvFormat): Lang => (f === "br" ? "pt-BR" : "en")
const label = (path: string) => ({ br: fieldLabel("pt-BR", path), international: path })
const amountOf = (cents: number, f: CsvFormat) => decimal(cents, f === "br" ? "," : ".")
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/**
 * Money in is positive, money out negative: a charge's amount `+`, a payout's and a refund's
 * `-`; a fee is always `-` (what the merchant pays).
 */
export const signedAmount = (row: CsvRow): number =>
  row.kind === "refund" ? -row.refund.amount : row.tx.type === "withdrawal" ? -row.tx.amount : row.tx.amount

/** The row's fee, negative (a refund has none). */
export const signedFee = (row: CsvRow): number => (row.kind === "refund" ? 0 : 0 - row.tx.feeAmount)

/**
 * What the row moved on the available balance: a paid charge its net (received less the fee),
 * a payout its amount and fee while pending or completed (a failed one gave them back), a
 * refund its amount while pending or completed; a pending, failed or expired charge nothing.
 * The column's sum over a period's rows is the balance's change (chargeback holds, sandbox
 * top-ups and payments between accounts are movements of the OFX statement, not rows here).
 */
export const balanceEffect = (row: CsvRow): number | null => {
  if (row.kind === "refund") return row.refund.status === "failed" ? 0 : -row.refund.amount
  const tx = row.tx
  switch (tx.type) {
    case "deposit":
      return tx.status === "completed" || tx.status === "refunded" ? tx.netAmount : 0
    case "withdrawal":
      return tx.status === "failed" ? 0 : -(tx.amount + tx.feeAmount)
    default:
      return null
  }
}

const txOf = (row: CsvRow): Domain.Transaction => (row.kind === "tx" ? row.tx : row.charge)
const whenOf = (row: CsvRow): number => (row.kind === "tx" ? row.tx.createdAt : row.refund.createdAt)

/** The CSV's columns, in order. */
export const csvColumns: ReadonlyArray<Column> = [
  { header: label("id"), value: (r) => (r.kind === "tx" ? r.tx.id : r.refund.id) },
  {
    header: { br: "Data", international: "createdAt" },
    value: (r, f) => (f === "br" ? localDate(whenOf(r)) : iso(whenOf(r)))
  },
  { header: { br: "Hora", international: "" }, value: (r) => localClock(whenOf(r)) },
  {
    header: label("type"),
    value: (r, f) => {
      const type = r.kind === "tx" ? r.tx.type : "refund"
      return f === "br" ? typeLabel("pt-BR", type) : type
    }
  },
  {
    header: label("status"),
    value: (r, f) => {
      const [type, status] = r.kind === "tx" ? [r.tx.type, r.tx.status] : ["refund", r.refund.status]
      return f === "br" ? statusLabel("pt-BR", type, status) : status
    }
  },
  { header: label("amount"), value: (r, f) => amountOf(signedAmount(r), f), amount: true },
  { header: label("feeAmount"), value: (r, f) => amountOf(signedFee(r), f), amount: true },
  {
    header: { br: "Efeito no saldo", international: "balanceEffect" },
    value: (r, f) => {
      const effect = balanceEffect(r)
      return effect === null ? null : amountOf(effect, f)
    },
    amount: true
  },
  { header: label("description"), value: (r) => (r.kind === "tx" ? r.tx.description : r.refund.description) },
  { header: label("clientName"), value: (r) => txOf(r).clientName },
  { header: label("clientDocument"), value: (r) => txOf(r).clientDocument },
  { header: label("pixKey"), value: (r) => txOf(r).pixKey },
  { header: label("txid"), value: (r) => txOf(r).txid },
  {
    header: label("endToEndId"),
    value: (r) => (r.kind === "tx" ? r.tx.endToEndId : r.refund.returnId)
  },
  {
    header: label("failureReason"),
    value: (r, f) => {
      const reason = r.kind === "tx" ? r.tx.failureReason : r.refund.failureReason
      return reason === null ? null : f === "br" ? reasonLabel(lang(f), reason) : reason
    }
  },
  {
    header: { br: "Data do pagamento", international: "paidAt" },
    value: (r, f) => {
      const at = r.kind === "tx" ? r.tx.paidAt : null
      return at === null ? null : f === "br" ? localDate(at) : iso(at)
    }
  },
  {
    header: { br: "Hora do pagamento", international: "" },
    value: (r) => (r.kind === "tx" && r.tx.paidAt !== null ? localClock(r.tx.paidAt) : null)
  },
  {
    header: { br: "Cobrança devolvida", international: "refundOf" },
    value: (r) => (r.kind === "refund" ? r.charge.id : null)
  }
]

/** The columns of a format (the international form has one ISO time column where pt-BR has two). */
const columnsOf = (f: CsvFormat) => csvColumns.filter((c) => c.header[f] !== "")

/**
 * One CSV field: quoted when it holds the separator, a quote or a line break; text a spreadsheet
 * would run as a formula (`=`, `+`, `-`, `@`, tab, CR at its start) gets a leading `'`.
 */
export const csvField = (value: string | number | null, separator: string, guard: boolean): string => {
  if (value === null) return ""
  let text = String(value)
  if (guard && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return text.includes(separator) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** One row (a transaction, or a refund with its charge) as a CSV line (with its CRLF). */
export const csvLine = (row: CsvRow | Domain.Transaction, f: CsvFormat): string => {
  const r: CsvRow = "kind" in row ? row : { kind: "tx", tx: row }
  const separator = f === "br" ? ";" : ","
  return `${columnsOf(f)
    .map((c) => csvField(c.value(r, f), separator, c.amount !== true))
    .join(separator)}\r\n`
}

/** The header line, after the BOM in the Brazilian form (Excel reads the file as UTF-8 only with it). */
export const csvHeader = (f: CsvFormat): string =>
  `${f === "br" ? "\uFEFF" : ""}${columnsOf(f)
    .map((c) => csvField(c.header[f], f === "br" ? ";" : ",", false))
    .join(f === "br" ? ";" : ",")}\r\n`

/**
 * The transactions of `filter`, newest first as in the list, page by page: each page starts
 * after the previous page's last row (keyset), without counting, so every page costs the same.
 */
export const transactionPages = (
  filter: TransactionFilter,
  now: number
): Stream.Stream<ReadonlyArray<Domain.Transaction>, Store.StoreError, Store.Store> => {
  const to = Math.min(filter.to ?? Number.POSITIVE_INFINITY, now + 1)
  type Cursor = { readonly createdAt: number; readonly id: string } | null
  return Stream.paginateEffect<Cursor, ReadonlyArray<Domain.Transaction>, Store.StoreError, Store.Store>(
    null,
    (cursor) =>
      Effect.flatMap(Store.Store, (st) =>
        st.listTransactions({
          merchantId: filter.merchantId,
          mode: filter.mode,
          ...(filter.type === undefined ? {} : { type: filter.type }),
          ...(filter.status === undefined ? {} : { status: filter.status }),
          ...(filter.from === undefined ? {} : { from: filter.from }),
          to,
          ...(cursor === null ? {} : { before: cursor }),
          offset: 0,
          limit: pageSize,
          countTotal: false
        })
      ).pipe(
        Effect.map((page) => {
          const last = page.rows[page.rows.length - 1]
          const next: Option.Option<Cursor> =
            page.rows.length < pageSize || last === undefined
              ? Option.none()
              : Option.some({ createdAt: last.createdAt, id: last.id })
          return [page.rows, next] as const
        })
      )
  )
}

const encoder = new TextEncoder()

/**
 * A page of transactions with each paid charge's refunds after it (those made in the filter's
 * period; none when the filter asks for a status or a type other than charges). The refunds are
 * read per paid charge of the page (`listRefunds`): a page of 500 charges costs up to 500 small
 * reads, which a merchant-wide refund listing in the store would save.
 */
const withRefunds = (
  filter: TransactionFilter,
  rows: ReadonlyArray<Domain.Transaction>
): Effect.Effect<ReadonlyArray<CsvRow>, Store.StoreError> =>
  filter.status !== undefined || (filter.type !== undefined && filter.type !== "deposit")
    ? Effect.succeed(rows.map((tx) => ({ kind: "tx", tx }) as const))
    : Effect.flatMap(RefundStore.orAbsent, (st) =>
        Effect.map(
          Effect.forEach(rows, (tx) =>
            tx.type === "deposit" && (tx.status === "completed" || tx.status === "refunded")
              ? Effect.map(st.listRefunds(tx.id), (refunds) => [
                  { kind: "tx", tx } as const,
                  ...refunds
                    .filter(
                      (r) =>
                        (filter.from === undefined || r.createdAt >= filter.from) &&
                        (filter.to === undefined || r.createdAt < filter.to)
                    )
                    .map((refund) => ({ kind: "refund", refund, charge: tx }) as const)
                ])
              : Effect.succeed([{ kind: "tx", tx } as const])
          ),
          (groups) => groups.flat()
        )
      )

/** The CSV of `filter` as UTF-8 bytes: the header, then one chunk per page of rows (refunds after their charge). */
export const csv = (
  filter: TransactionFilter,
  format: CsvFormat,
  now: number
): Stream.Stream<Uint8Array, Store.StoreError, Store.Store> =>
  Stream.concat(
    Stream.succeed(csvHeader(format)),
    Stream.filterMap(
      Stream.mapEffect(transactionPages(filter, now), (rows) => withRefunds(filter, rows)),
      (rows) =>
        rows.length === 0 ? Option.none() : Option.some(rows.map((r) => csvLine(r, format)).join(""))
    )
  ).pipe(Stream.map((text) => encoder.encode(text)))

// ---- OFX ----

/** One line of a statement: a ledger movement, or the fee part of one. */
export interface StatementLine {
  /** Unique and stable: the journal entry, the posting, and `F` for a fee part. */
  readonly fitId: string
  readonly postedAt: number
  /** Signed centavos: positive adds to the balance. */
  readonly amount: number
  readonly name: string
  readonly memo: string
}

/** Kinds whose posting carries the transaction's fee beside its amount, and the fee's sign there. */
const feeSign: Readonly<Record<string, -1 | 1>> = {
  "charge.completed": -1,
  "payout.created": -1,
  "payout.failed": 1
}

const kindNames: Readonly<Record<string, string>> = {
  "charge.completed": "Cobrança PIX recebida",
  "payout.created": "Saque PIX enviado",
  "payout.failed": "Saque PIX devolvido (falhou)",
  payment: "Pagamento entre contas",
  "chargeback.opened": "Contestação aberta (valor retido)",
  "chargeback.rejected": "Contestação encerrada (valor liberado)",
  "refund.created": "Devolução PIX enviada",
  "refund.failed": "Devolução PIX estornada (falhou)",
  "sandbox.topup": "Crédito de teste (sandbox)"
}

/** The statement lines of one movement: the fee apart from the amount it came with. */
export const statementLines = (m: Store.AccountMovement): ReadonlyArray<StatementLine> => {
  const tx = m.transaction
  const base = `${m.entryId}.${m.seq}`
  const what = kindNames[m.kind] ?? m.kind
  const name = tx?.clientName ?? tx?.description ?? what
  const memo = [what, tx?.description, tx?.endToEndId, tx?.id]
    .filter((x) => x !== null && x !== undefined && x !== "")
    .join(" · ")
  const sign = feeSign[m.kind]
  const fee = tx === null || sign === undefined ? 0 : tx.feeAmount
  if (fee === 0 || sign === undefined)
    return [{ fitId: base, postedAt: m.createdAt, amount: m.amount, name, memo }]
  const feePart = sign * fee
  return [
    { fitId: base, postedAt: m.createdAt, amount: m.amount - feePart, name, memo },
    {
      fitId: `${base}.F`,
      postedAt: m.createdAt,
      amount: feePart,
      name: feePart < 0 ? "Tarifa" : "Tarifa estornada",
      memo: `${feePart < 0 ? "Tarifa" : "Tarifa estornada"} · ${what}${tx === null ? "" : ` · ${tx.id}`}`
    }
  ]
}

/** An OFX date-time in São Paulo time: `20261028231507[-3:BRT]`. */
export const ofxTime = (ms: number): string => {
  const p = saoPaulo(ms)
  const offset = saoPauloOffsetMinutes(ms) / 60
  return `${p.year}${p.month}${p.day}${p.hour}${p.minute}${p.second}[${offset}:${offset === -2 ? "BRST" : "BRT"}]`
}

/** Text inside an OFX element: no markup characters, no line breaks, at most `max` characters. */
export const ofxText = (text: string, max: number): string =>
  text
    .replace(/[\r\n\t]+/g, " ")
    .slice(0, max)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")

/** Which statement: a merchant's available balance in one mode, between two instants. */
export interface StatementQuery {
  readonly merchantId: Domain.MerchantId
  readonly mode: Domain.Mode
  /** Inclusive. */
  readonly from: number
  /** Exclusive; at most the instant the statement is made. */
  readonly to: number
}

/** The movements of a statement, page by page in journal order (keyset on entry and posting). */
export const movementPages = (
  q: StatementQuery
): Stream.Stream<ReadonlyArray<Store.AccountMovement>, Store.StoreError, Store.Store> =>
  Stream.paginateEffect<
    Store.MovementCursor | null,
    ReadonlyArray<Store.AccountMovement>,
    Store.StoreError,
    Store.Store
  >(null, (after) =>
    Effect.flatMap(Store.Store, (st) =>
      st.listAccountMovements({
        mode: q.mode,
        account: Domain.availableAccount(q.merchantId),
        from: q.from,
        to: q.to,
        ...(after === null ? {} : { after }),
        limit: pageSize
      })
    ).pipe(
      Effect.map((rows) => {
        const last = rows[rows.length - 1]
        return [
          rows,
          rows.length < pageSize || last === undefined
            ? Option.none()
            : Option.some<Store.MovementCursor | null>({ entryId: last.entryId, seq: last.seq })
        ] as const
      })
    )
  )

const sgml = (lines: ReadonlyArray<string>) => `${lines.join("\r\n")}\r\n`

/** The OFX statement's header, up to its list of movements. */
const ofxHeader = (q: StatementQuery, now: number, to: number): string =>
  sgml([
    "OFXHEADER:100",
    "DATA:OFXSGML",
    "VERSION:102",
    "SECURITY:NONE",
    "ENCODING:UTF-8",
    "CHARSET:NONE",
    "COMPRESSION:NONE",
    "OLDFILEUID:NONE",
    "NEWFILEUID:NONE",
    "",
    "<OFX>",
    "<SIGNONMSGSRSV1>",
    "<SONRS>",
    "<STATUS>",
    "<CODE>0",
    "<SEVERITY>INFO",
    "</STATUS>",
    `<DTSERVER>${ofxTime(now)}`,
    "<LANGUAGE>POR",
    "</SONRS>",
    "</SIGNONMSGSRSV1>",
    "<BANKMSGSRSV1>",
    "<STMTTRNRS>",
    `<TRNUID>${q.merchantId}-${q.mode}`,
    "<STATUS>",
    "<CODE>0",
    "<SEVERITY>INFO",
    "</STATUS>",
    "<STMTRS>",
    "<CURDEF>BRL",
    "<BANKACCTFROM>",
    "<BANKID>PIXGATE",
    `<ACCTID>${q.merchantId}-${q.mode}`,
    "<ACCTTYPE>CHECKING",
    "</BANKACCTFROM>",
    "<BANKTRANLIST>",
    `<DTSTART>${ofxTime(q.from)}`,
    `<DTEND>${ofxTime(to - 1)}`
  ])

/** One movement of the OFX statement. */
const ofxMovement = (line: StatementLine): string =>
  sgml([
    "<STMTTRN>",
    `<TRNTYPE>${line.amount < 0 ? "DEBIT" : "CREDIT"}`,
    `<DTPOSTED>${ofxTime(line.postedAt)}`,
    `<TRNAMT>${decimal(line.amount, ".")}`,
    `<FITID>${line.fitId}`,
    `<NAME>${ofxText(line.name, 32)}`,
    `<MEMO>${ofxText(line.memo, 255)}`,
    "</STMTTRN>"
  ])

/**
 * The statement as OFX 1.0.2 SGML in UTF-8: the header, then one chunk per page of movements,
 * then the balance at the period's end (read before the first movement, from the postings).
 */
export const ofx = (
  q: StatementQuery,
  now: number
): Stream.Stream<Uint8Array, Store.StoreError, Store.Store> => {
  const to = Math.min(q.to, now + 1)
  const query = { ...q, to }
  const head = Effect.flatMap(Store.Store, (st) =>
    st.accountBalanceBefore(q.mode, Domain.availableAccount(q.merchantId), to)
  ).pipe(
    Effect.map((closing: Money.Cents) => ({
      closing,
      text: ofxHeader(q, now, to)
    }))
  )
  return Stream.unwrap(
    Effect.map(head, ({ closing, text }) =>
      Stream.concat(
        Stream.succeed(text),
        Stream.concat(
          Stream.filterMap(movementPages(query), (rows) =>
            rows.length === 0
              ? Option.none()
              : Option.some(rows.flatMap(statementLines).map(ofxMovement).join(""))
          ),
          Stream.succeed(
            sgml([
              "</BANKTRANLIST>",
              "<LEDGERBAL>",
              `<BALAMT>${decimal(closing, ".")}`,
              `<DTASOF>${ofxTime(to - 1)}`,
              "</LEDGERBAL>",
              "</STMTRS>",
              "</STMTTRNRS>",
              "</BANKMSGSRSV1>",
              "</OFX>"
            ])
          )
        )
      )
    )
  ).pipe(Stream.map((t) => encoder.encode(t)))
}

/** A file name's date part: São Paulo's `YYYY-MM-DD` of an instant. */
export const fileDay = (ms: number): string => {
  const p = saoPaulo(ms)
  return `${p.year}-${p.month}-${p.day}`
}

/** A whole download as text (for small ones and tests: the routes stream). */
export const text = <R>(stream: Stream.Stream<Uint8Array, Store.StoreError, R>) =>
  Stream.runCollect(stream).pipe(
    Effect.map((chunks) => {
      const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
      return Chunk.toReadonlyArray(chunks)
        .map((c) => decoder.decode(c, { stream: true }))
        .join("")
    })
  )
