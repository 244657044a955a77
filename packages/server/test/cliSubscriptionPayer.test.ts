/**
 * `pixgate sandbox subscription` (the sandbox payer: approve, a maximum, no funds on a cycle,
 * retries paid or not, revoke; a missing flag is a usage error) and `pixgate subscription retry`
 * (the public retry of a cycle the payer had no funds for) on a SQLite file.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { DueDate } from "@pixgate/core"
import { clockAt } from "@pixgate/testkit/clock"
import { start } from "@pixgate/testkit/harness"
import { Effect } from "effect"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-subscription-payer-"))
const database = `sqlite:${join(dir, "subscriptions.db")}`
const cli = cliOn(database, dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const first = DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 6)

describe("pixgate sandbox subscription and subscription retry", () => {
  it("the payer approves, sets a maximum, has no funds on cycle 1; the merchant orders a retry; the payer revokes", async () => {
    const h = await start({ database, engine: { worker: false } })
    const m = await h.merchant("Academia Forte")
    const caller = await h.engine((e) => e.auth.authenticate(m.testKey))
    const sub = await h.engine((e) =>
      e.subscriptions.create(caller, {
        jornada: "JORNADA_2",
        vinculo: { contrato: "GYM-CLI-ESPERA", devedor: { cpf: "12345678909", nome: "Ana Souza" } },
        calendario: { dataInicial: DueDate.formatDay(first), periodicidade: "MENSAL" },
        valor: { valorRec: 9990 },
        politicaRetentativa: "PERMITE_3R_7D"
      })
    )
    await h.close()
    const base = ["sandbox", "subscription", "--merchant", m.merchantId, "--subscription", sub.id]

    const noMax = await cli(...base, "--action", "max")
    expect(noMax.code).not.toBe(0)
    expect(noMax.stderr).toContain("--max is required with --action max")
    const badAction = await cli(...base, "--action", "fly")
    expect(badAction.code).not.toBe(0)

    const max = await cli(...base, "--action", "max", "--max", "150.00", "--json")
    expect(max.code, max.stderr).toBe(0)
    expect(max.json).toMatchObject({ valorMaximoPagador: "150.00" })
    const noFunds = await cli(...base, "--action", "no-funds", "--cycles", "1")
    expect(noFunds.code, noFunds.stderr).toBe(0)
    expect((await cli(...base, "--action", "pay-on-retry", "--pay", "no")).code).toBe(0)
    const approved = await cli(...base, "--action", "approve")
    expect(approved.code, approved.stderr).toBe(0)
    expect(approved.stdout).toContain("APROVADA")

    // The days pass (the worker's ticks on a clock moved ahead): cycle 1 is rejected for no funds.
    const h2 = await start({ database, engine: { worker: false } })
    for (let at = Date.now() + 5_000; at <= DueDate.endOfDay(first) + 12 * 3_600_000; at += 6 * 3_600_000)
      await h2.engine((e) =>
        Effect.gen(function* () {
          while ((yield* e.subscriptions.tick) > 0) {}
        }).pipe(Effect.withClock(clockAt(at)))
      )
    const [cycle] = await h2.engine((e) => e.subscriptions.cycles(caller, sub.id))
    await h2.close()
    expect(cycle?.tentativas.map((t) => [t.status, t.rejeicao?.codigo])).toEqual([["REJEITADA", "NIEC"]])

    const txid = cycle?.txid ?? ""
    const retryBase = [
      "subscription",
      "retry",
      "--merchant",
      m.merchantId,
      "--mode",
      "test",
      "--subscription",
      sub.id
    ]
    const outside = await cli(...retryBase, "--txid", txid, "--date", DueDate.formatDay(first + 30))
    expect(outside.code).not.toBe(0)
    expect(outside.stderr).toContain("retry_not_allowed")
    const unknown = await cli(...retryBase, "--txid", "nope", "--date", DueDate.formatDay(first + 1))
    expect(unknown.code).not.toBe(0)
    const date = DueDate.formatDay(DueDate.nextBusinessDay(first + 1))
    const retried = await cli(...retryBase, "--txid", txid, "--date", date, "--json")
    expect(retried.code, retried.stderr).toBe(0)
    expect(
      (retried.json as { tentativas: Array<{ tipo: string; dataLiquidacao: string }> }).tentativas.map(
        (t) => [t.tipo, t.dataLiquidacao]
      )
    ).toEqual([
      ["AGND", DueDate.formatDay(first)],
      ["NTAG", date]
    ])

    const revoked = await cli(...base, "--action", "revoke", "--json")
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.json).toMatchObject({
      status: "CANCELADA",
      encerramento: { cancelamento: { solicitante: "USUARIO_PAGADOR" } }
    })
  }, 120_000)
})
