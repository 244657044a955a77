/**
 * The receiver withdrawing a cob (`PATCH /v2/cob/{txid}` with status
 * `REMOVIDA_PELO_USUARIO_RECEBEDOR`), the control API's view of a cob, and a throttling fault
 * (429 with `Retry-After`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { PspSimulator } from "../src/index.js"
import { call, cobBody, token, txid } from "./helpers.js"

let psp: PspSimulator.PspSimulator
let bearer: string

const control = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${psp.controlUrl}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { "content-type": "application/json" } })
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

beforeAll(async () => {
  psp = await PspSimulator.start({ controlPort: 0 })
  bearer = await token(psp)
})

beforeEach(() => psp.clearFaults())

afterAll(async () => {
  await psp?.close()
})

describe("withdrawing a cob", () => {
  it("turns an ATIVA cob REMOVIDA_PELO_USUARIO_RECEBEDOR; it can no longer be paid; a repeat is fine", async () => {
    const id = txid("withdraw1")
    expect(
      (await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody() })).status
    ).toBe(201)
    expect((await control("GET", `/cobs/${id}`)).body.status).toBe("ATIVA")
    const removed = await call(psp, {
      method: "PATCH",
      path: `/v2/cob/${id}`,
      token: bearer,
      body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" }
    })
    expect([removed.status, removed.body.status]).toEqual([200, "REMOVIDA_PELO_USUARIO_RECEBEDOR"])
    expect((await control("GET", `/cobs/${id}`)).body.status).toBe("REMOVIDA_PELO_USUARIO_RECEBEDOR")
    expect((await control("POST", `/cobs/${id}/pay`, {})).status).toBe(409)
    const again = await call(psp, {
      method: "PATCH",
      path: `/v2/cob/${id}`,
      token: bearer,
      body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" }
    })
    expect(again.status).toBe(200)
    // The same PUT again finds the withdrawn cob: it is not made ATIVA again.
    const put = await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody() })
    expect([put.status, put.body.status]).toEqual([200, "REMOVIDA_PELO_USUARIO_RECEBEDOR"])
  })

  it("refuses other revisions, unknown cobs and a cob already paid, as problems", async () => {
    const id = txid("withdraw2")
    await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody() })
    const other = await call(psp, {
      method: "PATCH",
      path: `/v2/cob/${id}`,
      token: bearer,
      body: { status: "ATIVA" }
    })
    expect([other.status, other.body.type]).toEqual([
      400,
      "https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida"
    ])
    expect(other.body.violacoes[0].propriedade).toBe("cob.status")
    const missing = await call(psp, {
      method: "PATCH",
      path: `/v2/cob/${txid("withdrawnone")}`,
      token: bearer,
      body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" }
    })
    expect(missing.status).toBe(404)
    await psp.payCob(id, { callback: "never" })
    const paid = await call(psp, {
      method: "PATCH",
      path: `/v2/cob/${id}`,
      token: bearer,
      body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" }
    })
    expect(paid.status).toBe(400)
    expect((await control("GET", `/cobs/${id}`)).body.status).toBe("CONCLUIDA")
    expect((await control("GET", `/cobs/${txid("withdrawnone")}`)).status).toBe(404)
  })

  it("needs the cob.write scope", async () => {
    const readOnly = await token(psp, "cob.read")
    const denied = await call(psp, {
      method: "PATCH",
      path: `/v2/cob/${txid("withdraw3")}`,
      token: readOnly,
      body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" }
    })
    expect(denied.status).toBe(403)
  })
})

describe("a throttling fault", () => {
  it("answers 429 with Retry-After for as many requests as asked, then the route works", async () => {
    const id = txid("throttled")
    await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody() })
    const added = await control("POST", "/faults", {
      route: "cob.get",
      kind: "status",
      status: 429,
      retryAfter: 2,
      times: 1
    })
    expect(added.status).toBe(200)
    const throttled = await call(psp, { method: "GET", path: `/v2/cob/${id}`, token: bearer })
    expect([throttled.status, throttled.headers["retry-after"]]).toEqual([429, "2"])
    expect(throttled.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/LimiteDeRequisicoes")
    expect((await call(psp, { method: "GET", path: `/v2/cob/${id}`, token: bearer })).status).toBe(200)
    expect(
      (await control("POST", "/faults", { route: "cob.get", kind: "status", retryAfter: -1 })).status
    ).toBe(400)
  })
})
