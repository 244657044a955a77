/**
 * `pixgate subscription list|show|cycles|cancel` on a SQLite file: a subscription created
 * through the engine on the same file, listed, shown with its QR, its (no) cycles, cancelled,
 * and a second cancel refused with `subscription_not_cancellable`; another merchant sees none.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { DueDate } from "@pixgate/core"
import { start } from "@pixgate/testkit/harness"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-subscriptions-"))
const database = `sqlite:${join(dir, "subscriptions.db")}`
const cli = cliOn(database, dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("pixgate subscription", () => {
  it("lists, shows, lists cycles and cancels a merchant's subscription", async () => {
    const h = await start({ database, engine: { worker: false } })
    const m = await h.merchant("Academia Forte")
    const other = await h.merchant("Outra")
    const caller = await h.engine((e) => e.auth.authenticate(m.testKey))
    const sub = await h.engine((e) =>
      e.subscriptions.create(caller, {
        jornada: "JORNADA_2",
        vinculo: { contrato: "GYM-CLI", devedor: { cpf: "12345678909", nome: "Ana Souza" } },
        calendario: {
          dataInicial: DueDate.formatDay(DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 6)),
          periodicidade: "MENSAL"
        },
        valor: { valorRec: 9990 },
        politicaRetentativa: "PERMITE_3R_7D"
      })
    )
    await h.close()
    const base = ["--merchant", m.merchantId, "--mode", "test"]

    const list = await cli("subscription", "list", ...base)
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toContain(sub.id)
    expect(list.stdout).toContain("99.90")
    const json = await cli("subscription", "list", ...base, "--json")
    expect((json.json as { data: Array<{ id: string }> }).data.map((s) => s.id)).toEqual([sub.id])
    const none = await cli("subscription", "list", "--merchant", other.merchantId, "--mode", "test")
    expect(none.stdout).toContain("(no subscriptions)")

    const show = await cli("subscription", "show", ...base, "--subscription", sub.id)
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toContain("pixCopiaECola")
    const cycles = await cli("subscription", "cycles", ...base, "--subscription", sub.id)
    expect(cycles.stdout).toContain("(no cycles)")

    const cancelled = await cli("subscription", "cancel", ...base, "--subscription", sub.id, "--json")
    expect(cancelled.code, cancelled.stderr).toBe(0)
    expect((cancelled.json as { status: string }).status).toBe("CANCELADA")
    const again = await cli("subscription", "cancel", ...base, "--subscription", sub.id)
    expect(again.code).not.toBe(0)
    expect(again.stderr).toContain("subscription_not_cancellable")
    const unknown = await cli(
      "subscription",
      "show",
      "--merchant",
      other.merchantId,
      "--mode",
      "test",
      "--subscription",
      sub.id
    )
    expect(unknown.code).not.toBe(0)
  }, 120_000)
})
