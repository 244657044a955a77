/**
 * Issue 38 (paper and defects), without a browser: the audit log's pt-BR labels and CSV, one
 * table of state labels, the PDF documents read back with pdf-parse, and the panel README's
 * single options table.
 */
import { readFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import type { Domain } from "@pixgate/core"
import { parse as parseCsv } from "csv-parse/sync"
import { describe, expect, it } from "vitest"
import * as AuditLog from "../src/AuditLog.js"
import { money, words } from "../src/I18n.js"
import type { View } from "../src/Layout.js"
import * as LiveStatus from "../src/LiveStatus.js"
import * as Messages from "../src/Messages.js"
import * as Paper from "../src/Paper.js"
import * as Receipt from "../src/Receipt.js"
import { pdfText } from "./support/pdfText.js"

const entry = (action: string, at: number): Domain.AuditEntry => ({
  id: `aud_${action}`,
  merchantId: "mer_1" as Domain.MerchantId,
  at,
  userId: "usr_1",
  actor: "dona@loja.example",
  action,
  objectId: null,
  address: "203.0.113.9",
  userAgent: "Chromium",
  detail: null
})

const tx = (extra: Partial<Domain.Transaction>): Domain.Transaction =>
  ({
    id: "tx_1",
    merchantId: "mer_1",
    mode: "test",
    type: "deposit",
    status: "completed",
    amount: 5000,
    feeAmount: 50,
    gatewayFeeAmount: 20,
    netAmount: 4950,
    clientName: "Maria Souza",
    clientDocument: "52998224725",
    pixKey: null,
    pixKeyType: null,
    txid: "pixgate01",
    endToEndId: "E12345678202612011200abcdefghijk",
    description: "Pedido 42",
    qrCode: null,
    expiresAt: null,
    paidAt: Date.UTC(2026, 11, 1, 2, 30),
    failureReason: null,
    receivedAmount: 5000,
    counterpartyId: null,
    dueTerms: null,
    createdAt: Date.UTC(2026, 11, 1, 2, 0),
    updatedAt: Date.UTC(2026, 11, 1, 2, 30),
    ...extra
  }) as Domain.Transaction

describe("the audit log in pt-BR", () => {
  it("labels every action the engine records, never showing a code where a label exists", () => {
    expect(AuditLog.actionLabel("pt-BR", "signin.success")).toBe("Entrada no painel")
    expect(AuditLog.actionLabel("pt-BR", "2fa.failure")).toBe("Código de verificação recusado")
    expect(AuditLog.actionLabel("en", "2fa.failure")).toBe("Verification code refused")
    // An action of a later version shows its code rather than nothing.
    expect(AuditLog.actionLabel("pt-BR", "future.thing")).toBe("future.thing")
    for (const [code, [pt, en]] of Object.entries(AuditLog.actionLabels)) {
      expect(pt, code).not.toBe(code)
      expect(en, code).not.toBe(code)
    }
  })

  it("writes its CSV as the other exports: BOM, `;`, São Paulo date and time, Portuguese headers and labels", () => {
    // 23:30 in São Paulo is 02:30 UTC the next day: the row stays on its São Paulo day.
    const at = Date.UTC(2026, 10, 29, 2, 30, 15)
    const text = [AuditLog.csvHeader("br"), AuditLog.csvLine(entry("signin.success", at), "br")].join("")
    expect(text.startsWith("\uFEFF")).toBe(true)
    expect(text).toContain("\r\n")
    const rows: Array<Record<string, string>> = parseCsv(text, { delimiter: ";", bom: true, columns: true })
    expect(rows[0]).toMatchObject({
      Data: "28/11/2026",
      Hora: "23:30:15",
      Quem: "dona@loja.example",
      Ação: "Entrada no painel",
      "Código da ação": "signin.success"
    })
    const intl =
      AuditLog.csvHeader("international") + AuditLog.csvLine(entry("2fa.failure", at), "international")
    expect(intl).toBe(
      "id,time_utc,actor,user_id,action,object_id,address,user_agent,detail\r\naud_2fa.failure,2026-11-29T02:30:15.000Z,dona@loja.example,usr_1,2fa.failure,,203.0.113.9,Chromium,\r\n"
    )
  })
})

describe("one table of state labels", () => {
  const view: View = {
    base: "/panel",
    path: "/",
    lang: "pt-BR",
    t: words("pt-BR"),
    mode: "test",
    csrf: "x",
    email: null,
    merchantName: "Loja",
    role: null
  }

  it("names a completed payout 'Concluído' and a paid charge 'Paga' on the receipt, the live box and the filter", () => {
    const payout = tx({
      id: "tx_2" as Domain.TransactionId,
      type: "withdrawal",
      pixKey: "ana@example.com",
      txid: null
    })
    expect(Receipt.body(view, payout, { name: "Loja" }).text).toContain(">Concluído</span>")
    expect(Receipt.body(view, payout, { name: "Loja" }).text).not.toContain("Concluída")
    expect(Receipt.body(view, tx({}), { name: "Loja" }).text).toContain(">Paga</span>")
    expect(String((LiveStatus.paidBox(view, tx({})) as { text: string }).text)).toContain(">Paga</h2>")
    expect(Messages.statusFilterLabel("pt-BR", "completed")).toBe("Paga / Concluído")
    expect(Messages.statusFilterLabel("pt-BR", "completed", "withdrawal")).toBe("Concluído")
    expect(Messages.statusFilterLabel("pt-BR", "completed", "deposit")).toBe("Paga")
    expect(Messages.statusFilterLabel("pt-BR", "refunded")).toBe("Devolvida / Devolvido")
    expect(Messages.statusLabel("pt-BR", "refund", "completed")).toBe("Concluída")
  })
})

describe("PDF documents read back", () => {
  const issuer = { merchantName: "Padaria São João", productName: "Pixgate" }

  it("puts a partial refund on the charge's receipt, with the CPF masked", async () => {
    const refund: Domain.Refund = {
      id: "rfd_1" as Domain.RefundId,
      transactionId: "tx_1" as Domain.TransactionId,
      merchantId: "mer_1" as Domain.MerchantId,
      mode: "test",
      amount: 1000 as Domain.Refund["amount"],
      status: "completed",
      description: "Item devolvido",
      failureReason: null,
      returnId: "D123",
      createdAt: Date.UTC(2026, 11, 1, 3),
      updatedAt: Date.UTC(2026, 11, 1, 3)
    }
    const text = await pdfText(await Paper.render(Paper.transactionReceipt(tx({}), [refund], issuer)))
    expect(text).toContain("Comprovante de recebimento PIX")
    expect(text).toContain("R$ 50,00")
    expect(text).toContain("***.982.247-**")
    expect(text).not.toContain("52998224725")
    expect(text).not.toContain("529.982.247-25")
    expect(text).toContain("Devoluções desta cobrança")
    expect(text).toMatch(/Total devolvido:? -R\$ 10,00/)
    expect(text).toMatch(/Valor mantido após devoluções:? R\$ 40,00/)
    const own = await pdfText(await Paper.render(Paper.refundReceipt(refund, tx({}), issuer)))
    expect(own).toContain("Comprovante de devolução PIX")
    expect(own).toContain("R$ 10,00")
    expect(own).toContain("***.982.247-**")
  })

  it("lists the bank's MED devoluções on a charge returned in full, with the total", async () => {
    const text = await pdfText(
      await Paper.render(
        Paper.transactionReceipt(tx({ status: "refunded" }), [], issuer, [
          {
            id: "D0000000120261201abcdefghijk",
            returnedAt: Date.UTC(2026, 11, 1, 15),
            nature: "MED_FRAUDE",
            amount: 3000
          },
          {
            id: "D0000000120261202abcdefghijk",
            returnedAt: Date.UTC(2026, 11, 2, 15),
            nature: "MED_OPERACIONAL",
            amount: 2000
          }
        ])
      )
    )
    expect(text).toContain("Devoluções desta cobrança")
    expect(text).toContain("D0000000120261201abcdefghijk")
    expect(text).toContain("Devolvida pelo banco (MED, fraude)")
    expect(text).toContain("Devolvida pelo banco (MED, falha operacional)")
    expect(text).toMatch(/Total devolvido:? -R\$ 50,00/)
    expect(text).toMatch(/Valor mantido após devoluções:? R\$ 0,00/)
  })

  it("writes a statement whose opening balance plus its lines is its closing balance", async () => {
    const rows = [
      { postedAt: Date.UTC(2026, 11, 1, 13), memo: "Cobrança PIX recebida · tx_1", amount: 5000 },
      { postedAt: Date.UTC(2026, 11, 1, 13), memo: "Tarifa · tx_1", amount: -50 },
      { postedAt: Date.UTC(2026, 11, 2, 13), memo: "Saque PIX enviado · tx_2", amount: -2000 }
    ]
    const paper = Paper.statement(
      {
        month: "2026-12",
        mode: "test",
        opening: 10_000,
        closing: 12_950,
        rows,
        until: Date.UTC(2026, 11, 2, 14)
      },
      issuer
    )
    const text = await pdfText(await Paper.render(paper))
    expect(text).toContain("Extrato mensal · 12/2026")
    expect(text).toMatch(/Saldo inicial:? R\$ 100,00/)
    expect(text).toMatch(/Entradas:? R\$ 50,00/)
    expect(text).toMatch(/Saídas:? -R\$ 20,50/)
    expect(text).toMatch(/Saldo final:? R\$ 129,50/)
    expect(text).toContain("Saque PIX enviado · tx_2")
    expect(money("pt-BR", 10_000 + rows.reduce((n, r) => n + r.amount, 0))).toBe("R$ 129,50")
  })
})

describe("the panel README", () => {
  it("has one options table, listing each option of PanelOptions once", async () => {
    const root = fileURLToPath(new URL("..", import.meta.url))
    const readme = await readFile(`${root}README.md`, "utf8")
    const source = await readFile(`${root}src/Panel.ts`, "utf8")
    const tables = readme.split("\n").filter((l) => /^\|\s*Option\s*\|/.test(l))
    expect(tables).toHaveLength(1)
    const body = source.slice(source.indexOf("export interface PanelOptions"))
    const options = [...body.slice(0, body.indexOf("\n}\n")).matchAll(/^ {2}readonly (\w+)\??:/gm)].map(
      (m) => m[1]
    )
    const rows = [...readme.matchAll(/^\| `(\w+)`\s*\|/gm)].map((m) => m[1])
    const optionRows = rows.filter((r) => options.includes(r))
    expect(new Set(optionRows).size).toBe(optionRows.length)
    expect([...optionRows].sort()).toEqual([...options].sort())
  })
})
