/**
 * The panel's look without a browser: white-label options (colour parsing, contrast, refusals),
 * the chart's markup (labels in CSS pixels, a tooltip per day), receipts (CPF masked, fields) and
 * the live-status markers.
 */
import { Domain } from "@pixgate/core"
import { Pixgate } from "@pixgate/http/node"
import { SqliteStore } from "@pixgate/store-sqlite"
import { must } from "@pixgate/testkit/must"
import { describe, expect, it } from "vitest"
import * as Brand from "../src/Brand.js"
import * as Chart from "../src/Chart.js"
import { words } from "../src/I18n.js"
import { page, type View } from "../src/Layout.js"
import * as LiveStatus from "../src/LiveStatus.js"
import * as Receipt from "../src/Receipt.js"

const view = (brand?: Brand.Brand): View => ({
  base: "/merchants/panel",
  path: "/",
  lang: "pt-BR",
  t: words("pt-BR"),
  mode: "test",
  csrf: "x".repeat(32),
  email: null,
  merchantName: "Loja Aurora",
  ...(brand === undefined ? {} : { brand })
})

const tx = (fields: Partial<Domain.Transaction> = {}): Domain.Transaction =>
  Domain.newTransaction({
    id: "tx_0123456789abcdefghijklmn" as Domain.TransactionId,
    merchantId: "mer_1" as Domain.MerchantId,
    mode: "test",
    type: "deposit",
    status: "completed",
    amount: 150075 as Domain.Transaction["amount"],
    createdAt: Date.UTC(2026, 9, 29, 1, 30),
    clientName: "João da Silva",
    clientDocument: "52998224725",
    endToEndId: "E1234567820261029013000000000001",
    txid: "abc123",
    paidAt: Date.UTC(2026, 9, 29, 1, 31, 5),
    ...fields
  })

describe("white-label options", () => {
  it("parses CSS colours in hex, rgb() and hsl() and refuses anything else", () => {
    expect(Brand.parseColor("#0B5FFF")).toEqual([11, 95, 255])
    expect(Brand.parseColor("#fa0")).toEqual([255, 170, 0])
    expect(Brand.parseColor("rgb(10, 20, 30)")).toEqual([10, 20, 30])
    expect(Brand.parseColor("rgb(10 20 30)")).toEqual([10, 20, 30])
    expect(Brand.parseColor("rgb(100%, 0%, 50%)")).toEqual([255, 0, 128])
    expect(Brand.parseColor("hsl(120, 100%, 25%)")).toEqual([0, 128, 0])
    expect(Brand.parseColor("hsl(0deg 100% 50%)")).toEqual([255, 0, 0])
    for (const bad of [
      "red;}body{display:none",
      "#12345",
      "rgb(300, 0, 0)",
      "rgb(1, 2%, 3)",
      "var(--x)",
      "",
      "url(x)"
    ])
      expect(Brand.parseColor(bad), bad).toBeUndefined()
  })

  it("keeps any brand colour readable: links reach 4.5:1 on white, button text takes the better contrast", () => {
    for (const color of ["#ffd400", "#00e5ff", "#6a1b9a", "#0b5fff", "hsl(90 100% 60%)"]) {
      const css = Brand.make({ primaryColor: color }, "").css
      const hex = (name: string) => new RegExp(`--${name}:(#[0-9a-f]{6})`).exec(css)?.[1] ?? ""
      const link = must(Brand.parseColor(hex("accent")), 'Brand.parseColor(hex("accent"))')
      const brand = must(Brand.parseColor(hex("brand")), 'Brand.parseColor(hex("brand"))')
      const on = must(Brand.parseColor(hex("on-brand")), 'Brand.parseColor(hex("on-brand"))')
      expect(Brand.contrast(link, [255, 255, 255]), color).toBeGreaterThanOrEqual(4.5)
      const other: readonly [number, number, number] = on[0] === 255 ? [0x1b, 0x1f, 0x24] : [255, 255, 255]
      expect(Brand.contrast(brand, on), color).toBeGreaterThanOrEqual(Brand.contrast(brand, other))
    }
  })

  it("refuses bad options at start-up with a TypeError naming them", () => {
    expect(() => Brand.make({ primaryColor: "red;}" }, "")).toThrow(/brand.primaryColor/)
    expect(() => Brand.make({ logo: "javascript:alert(1)" }, "")).toThrow(/brand.logo/)
    expect(() => Brand.make({ logo: "http://cdn.example/logo.png" }, "")).toThrow(/brand.logo/)
    expect(() => Brand.make({ logo: "<svg><script>" }, "")).toThrow(/brand.logo/)
    expect(() => Brand.make({ supportUrl: "javascript:alert(1)" }, "")).toThrow(/brand.supportUrl/)
    expect(() => Brand.make({ productName: "" }, "")).toThrow(/brand.productName/)
    expect(() => Brand.make({ productName: "x".repeat(61) }, "")).toThrow(/brand.productName/)
  })

  it("resolves logos: an https URL allows its origin, an inline SVG is served under the base path", () => {
    const remote = Brand.make({ logo: "https://cdn.example.com/acme/logo.png" }, "/p")
    expect([remote.logoSrc, remote.imageOrigin]).toEqual([
      "https://cdn.example.com/acme/logo.png",
      "https://cdn.example.com"
    ])
    const inline = Brand.make({ logo: '<svg xmlns="http://www.w3.org/2000/svg"></svg>' }, "/merchants/panel")
    expect([inline.logoSrc, inline.imageOrigin]).toEqual(["/merchants/panel/assets/logo.svg", undefined])
    expect(Brand.make({ logo: "/static/logo.png" }, "").logoSrc).toBe("/static/logo.png")
  })

  it("puts the product name, logo, colour sheet and support link in the frame", () => {
    const brand = Brand.make(
      {
        productName: "Acme Pay",
        logo: "/static/acme.png",
        primaryColor: "#6a1b9a",
        supportUrl: "mailto:help@acme.example"
      },
      "/merchants/panel"
    )
    const text = page(view(brand), "Visão geral", "").text
    expect(text).toContain("<title>Visão geral · Acme Pay</title>")
    expect(text).toContain('href="/merchants/panel/assets/brand.css"')
    expect(text).toContain('<img src="/static/acme.png" alt="" height="32">')
    expect(text).toContain('href="mailto:help@acme.example"')
    expect(text).toContain("Acme Pay · Loja Aurora")
    expect(text).not.toContain("Painel Pixgate")
    const plain = page(view(), "Visão geral", "").text
    expect(plain).toContain("Painel Pixgate · Loja Aurora")
    expect(plain).not.toContain("brand.css")
  })
})

describe("white-label options in a running panel", () => {
  it("serve the colour sheet and allow an https logo's origin in the pages' policy only when set", async () => {
    const pixgate = await Pixgate.make({
      store: SqliteStore.layer({ filename: ":memory:" }),
      panel: {
        basePath: "/merchants/panel",
        brand: {
          logo: "https://cdn.acme.example/logo.png",
          primaryColor: "rgb(106 27 154)",
          productName: "Acme"
        }
      }
    })
    try {
      const get = (path: string) =>
        must(pixgate.panel, "pixgate.panel").webHandler(
          new Request(`http://host.example/merchants/panel${path}`)
        )
      const signin = await get("/signin")
      expect(signin.status).toBe(200)
      expect(signin.headers.get("content-security-policy")).toContain(
        "img-src 'self' data: https://cdn.acme.example;"
      )
      const text = await signin.text()
      expect(text).toContain('<img src="https://cdn.acme.example/logo.png" alt="" height="32">')
      expect(text).toContain("<title>Entrar · Acme</title>")
      expect(await (await get("/assets/brand.css")).text()).toContain("--brand:#6a1b9a")
      // No inline SVG given: no logo route.
      expect((await get("/assets/logo.svg")).status).not.toBe(200)
    } finally {
      await pixgate.dispose()
    }
    // A bad option stops the panel from being made at all.
    await expect(
      Pixgate.make({
        store: SqliteStore.layer({ filename: ":memory:" }),
        panel: { brand: { primaryColor: "blue" } }
      })
    ).rejects.toThrow(/brand.primaryColor "blue" is not a CSS colour/)
  })
})

describe("chart", () => {
  const days: ReadonlyArray<Chart.Day> = Array.from({ length: 30 }, (_, i) => ({
    day: `2026-10-${String(i + 1).padStart(2, "0")}`,
    received: i * 100,
    sent: 50,
    fees: i
  }))

  it("draws in percentages without a viewBox, so its 13 px labels never shrink, and labels today", () => {
    const svg = Chart.svg(days, "Gráfico", (c) => `R$ ${c}`, Chart.wordsOf("pt-BR", words("pt-BR"))).text
    expect(svg).not.toContain("viewBox")
    expect(svg).not.toContain("font-size")
    expect(svg).toMatch(/<rect class="bar-received" data-day="2026-10-30" x="[\d.]+%"/)
    const labels = [...svg.matchAll(/<text class="axis"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1])
    expect(labels).toEqual(["R$ 2900", "02/10", "09/10", "16/10", "23/10", "30/10"])
  })

  it("gives each day a tooltip with its three amounts in the page's words", () => {
    const svg = Chart.svg(days, "Gráfico", (c) => `R$ ${c}`, Chart.wordsOf("pt-BR", words("pt-BR"))).text
    expect(svg).toContain(
      "<title>30/10/2026 · Cobranças recebidas: R$ 2900 · Saques enviados: R$ 50 · Tarifas: R$ 29</title>"
    )
    expect(svg.match(/<rect class="hit"/g)?.length).toBe(30)
  })
})

describe("receipts", () => {
  it("masks a person's CPF, shows a company's CNPJ and leaves other text alone", () => {
    expect(Receipt.document("529.982.247-25")).toBe("***.982.247-**")
    expect(Receipt.document("11222333000181")).toBe("11.222.333/0001-81")
    expect(Receipt.document("passport X1")).toBe("passport X1")
    expect(Receipt.document(null)).toBeNull()
  })

  it("exists for completed charges and payouts, and for paid charges returned in full", () => {
    expect(Receipt.has(tx())).toBe(true)
    expect(Receipt.has(tx({ type: "withdrawal" }))).toBe(true)
    expect(Receipt.has(tx({ status: "pending" }))).toBe(false)
    expect(Receipt.has(tx({ type: "payment" }))).toBe(false)
    // Paid, then refunded or taken back by the bank in full: what came in and what went back.
    expect(Receipt.has(tx({ status: "refunded", failureReason: null }))).toBe(true)
    // Expired, and its late PIX returned uncredited: nothing was received.
    expect(Receipt.has(tx({ status: "refunded", failureReason: "expired" }))).toBe(false)
    expect(Receipt.has(tx({ type: "withdrawal", status: "refunded", failureReason: null }))).toBe(false)
  })

  it("shows amount, parties, end-to-end id, São Paulo time, mode and merchant", () => {
    const text = Receipt.body(view(), tx(), { name: "Loja Aurora" }).text
    expect(text).toContain("R$ 1.500,75")
    expect(text).toContain("João da Silva<br>***.982.247-**")
    expect(text).toContain("E1234567820261029013000000000001")
    // 01:31:05 UTC on 29/10 is 22:31:05 on 28/10 in São Paulo.
    expect(text).toContain("28/10/2026, 22:31:05")
    expect(text).toContain("Modo de teste")
    expect(text).toContain("Loja Aurora · Painel Pixgate")
    const payout = Receipt.body(view(), tx({ type: "withdrawal", pixKey: "ana@aurora.example" }), {
      name: "Loja Aurora"
    }).text
    expect(payout).toMatch(/data-testid="receipt-payer">Loja Aurora</)
    expect(payout).toContain("ana@aurora.example")
  })
})

describe("live status", () => {
  it("marks pending charges with the status route, and shows a paid charge with pay-now disabled", () => {
    expect(String(LiveStatus.marker(view(), tx({ status: "pending" })))).toContain(
      'data-live-status="/merchants/panel/transactions/tx_0123456789abcdefghijklmn/status"'
    )
    expect(LiveStatus.marker(view(), tx())).toBe("")
    const box = String(LiveStatus.paidBox(view(), tx()))
    expect(box).toMatch(/<button type="button" disabled data-testid="pay-now">/)
    expect(box).toContain("/merchants/panel/transactions/tx_0123456789abcdefghijklmn/receipt")
    expect(LiveStatus.json(tx())).toMatchObject({ status: "completed", paid: true })
  })
})
