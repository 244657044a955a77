import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { PspSimulator } from "../src/index.js"
import { call, cobBody, token, txid } from "./helpers.js"

let psp: PspSimulator.PspSimulator
let bearer: string

const sendBody = {
  valor: "5.00",
  pagador: { chave: "merchant@example.com" },
  favorecido: { chave: "x@example.com" }
}

beforeAll(async () => {
  psp = await PspSimulator.start()
  bearer = await token(psp)
})

beforeEach(() => psp.clearFaults())

afterAll(async () => {
  await psp?.close()
})

describe("faults by route", () => {
  it("status answers a 5xx problem for as many requests as asked, then the route works again", async () => {
    psp.addFault({ route: "cob.put", kind: "status", times: 1 })
    psp.addFault({ route: "cob.get", kind: "status", status: 503, times: 1 })
    const id = txid("fault500")
    const failed = await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody() })
    expect([failed.status, failed.body.type]).toEqual([
      500,
      "https://pix.bcb.gov.br/api/v2/error/ErroInternoDoServidor"
    ])
    expect(psp.state.cobs.has(id)).toBe(false)
    const unavailable = await call(psp, { method: "GET", path: `/v2/cob/${id}`, token: bearer })
    expect(unavailable.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel")
    expect(
      (await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody() })).status
    ).toBe(201)
    expect(psp.faults()).toEqual([])
  })

  it("expireToken answers 401 and the token stays expired; a new one works", async () => {
    const own = await token(psp)
    psp.addFault({ route: "*", kind: "expireToken", times: 1 })
    expect((await call(psp, { method: "GET", path: "/v2/cob/none", token: own })).status).toBe(401)
    expect((await call(psp, { method: "GET", path: "/v2/cob/none", token: own })).status).toBe(401)
    expect((await call(psp, { method: "GET", path: "/v2/cob/none", token: await token(psp) })).status).toBe(
      404
    )
  })

  it("reset drops the connection without an answer", async () => {
    psp.addFault({ route: "send.put", kind: "reset", times: 1 })
    await expect(
      call(psp, { method: "PUT", path: "/v3/gn/pix/reset1", token: bearer, body: sendBody })
    ).rejects.toThrow()
    expect(psp.state.sends.has("reset1")).toBe(false)
    expect(psp.requests.at(-1)).toMatchObject({ route: "send.put", outcome: "reset" })
  })

  it("after: the send is accepted but the caller sees a reset; the status read finds it, a replay does not double it", async () => {
    psp.addFault({ route: "send.put", kind: "reset", after: true, times: 1 })
    await expect(
      call(psp, { method: "PUT", path: "/v3/gn/pix/unknown1", token: bearer, body: sendBody })
    ).rejects.toThrow()
    expect(psp.state.sends.get("unknown1")?.status).toBe("EM_PROCESSAMENTO")
    const status = await call(psp, {
      method: "GET",
      path: "/v2/gn/pix/enviados/id-envio/unknown1",
      token: bearer
    })
    expect(status.body.status).toBe("EM_PROCESSAMENTO")
    const replay = await call(psp, {
      method: "PUT",
      path: "/v3/gn/pix/unknown1",
      token: bearer,
      body: sendBody
    })
    expect(replay.status).toBe(200)
    expect([...psp.state.sends.keys()].filter((id) => id === "unknown1")).toHaveLength(1)
  })

  it("timeout never answers: the caller gives up on its own clock", async () => {
    psp.addFault({ route: "pix.get", kind: "timeout", times: 1 })
    await expect(
      call(psp, { method: "GET", path: `/v2/pix/E${"2".repeat(31)}`, token: bearer, timeoutMs: 300 })
    ).rejects.toThrow("client time-out")
    expect(psp.requests.at(-1)).toMatchObject({ route: "pix.get", outcome: "timeout" })
  })

  it("latency delays the answer but the request succeeds", async () => {
    psp.addFault({ route: "token", kind: "latency", ms: 20, times: 1 })
    expect(await token(psp)).toEqual(expect.any(String))
  })

  it("a fault on one route leaves the others alone", async () => {
    psp.addFault({ route: "send.get", kind: "status" })
    expect((await call(psp, { method: "GET", path: "/v2/cob/none", token: bearer })).status).toBe(404)
    expect(
      (await call(psp, { method: "GET", path: "/v2/gn/pix/enviados/id-envio/x", token: bearer })).status
    ).toBe(500)
    expect(psp.faults()).toEqual([{ route: "send.get", kind: "status" }])
  })
})

describe("bad paths", () => {
  it("answers a problem for an unknown route and for a malformed escape", async () => {
    const unknown = await call(psp, { method: "GET", path: "/v2/nothing", token: bearer })
    expect([unknown.status, unknown.body.type]).toEqual([
      404,
      "https://pix.bcb.gov.br/api/v2/error/NaoEncontrado"
    ])
    const malformed = await call(psp, { method: "GET", path: "/v2/cob/%E0%A4%A", token: bearer })
    expect([malformed.status, malformed.body.type]).toEqual([
      400,
      "https://pix.bcb.gov.br/api/v2/error/RequisicaoInvalida"
    ])
  })
})
