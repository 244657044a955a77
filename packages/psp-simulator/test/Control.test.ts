import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PspSimulator } from "../src/index.js"
import { call, cobBody, receiver, registerWebhook, token, txid } from "./helpers.js"

let psp: PspSimulator.PspSimulator
let hook: Awaited<ReturnType<typeof receiver>>
let bearer: string

const control = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${psp.controlUrl}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { "content-type": "application/json" } })
  })
  return { status: response.status, body: await response.json() }
}

beforeAll(async () => {
  psp = await PspSimulator.start({ controlPort: 0 })
  hook = await receiver()
  bearer = await token(psp)
  await registerWebhook(psp, bearer, hook.url)
})

afterAll(async () => {
  await psp?.close()
  await hook?.close()
})

describe("control API", () => {
  it("serves the certificates and the state", async () => {
    expect(psp.controlUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const tls = await control("GET", "/tls")
    expect(tls.body.caPem).toBe(psp.tls.caPem)
    expect(Buffer.from(tls.body.clientPkcs12Base64, "base64").equals(psp.tls.clientPkcs12)).toBe(true)
    const state = await control("GET", "/state")
    expect(state.body).toMatchObject({ cobs: [], pix: [], sends: [], faults: [] })
  })

  it("pays a cob with any amount and a chosen callback mode", async () => {
    const id = txid("control")
    await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody("10.00") })
    const paid = await control("POST", `/cobs/${id}/pay`, { valor: "10.01", callback: "twice" })
    expect(paid.status).toBe(200)
    expect(paid.body).toMatchObject({ txid: id, valor: "10.01" })
    expect(hook.received).toHaveLength(2)
    expect((await control("POST", `/cobs/${id}/pay`, {})).status).toBe(409)
    expect((await control("POST", `/cobs/${id}/pay`, { force: true, callback: "never" })).status).toBe(200)
    expect((await control("POST", "/cobs/nope/pay", {})).status).toBe(404)
    expect((await control("POST", `/cobs/${id}/pay`, { callback: "sometimes" })).status).toBe(400)
  })

  it("settles and rejects sends, holds and releases callbacks", async () => {
    const body = {
      valor: "1.00",
      pagador: { chave: "merchant@example.com" },
      favorecido: { chave: "y@example.com" }
    }
    await call(psp, { method: "PUT", path: "/v3/gn/pix/ctl1", token: bearer, body })
    await call(psp, { method: "PUT", path: "/v3/gn/pix/ctl2", token: bearer, body })
    hook.received.length = 0
    expect((await control("PUT", "/callbacks/mode", { mode: "hold" })).status).toBe(200)
    expect((await control("POST", "/sends/ctl1/settle", {})).body.status).toBe("REALIZADO")
    expect((await control("POST", "/sends/ctl2/reject", { motivo: "no" })).body.status).toBe("NAO_REALIZADO")
    expect(hook.received).toHaveLength(0)
    await control("POST", "/callbacks/release", { order: "reverse" })
    const order = hook.received.map(
      (item) => (item.body as { pix: Array<{ gnExtras: { idEnvio: string } }> }).pix[0].gnExtras.idEnvio
    )
    expect(order).toEqual(["ctl2", "ctl1"])
    await control("PUT", "/callbacks/mode", { mode: "now" })
    expect((await control("POST", "/sends/ctl1/settle", {})).status).toBe(409)
  })

  it("adds and clears faults, expires tokens and sets their lifetime", async () => {
    const added = await control("POST", "/faults", {
      route: "cob.get",
      kind: "status",
      status: 502,
      times: 1
    })
    expect(added.body.faults).toEqual([{ route: "cob.get", kind: "status", status: 502, times: 1 }])
    expect((await call(psp, { method: "GET", path: "/v2/cob/x", token: bearer })).status).toBe(502)
    expect((await control("POST", "/faults", { route: "nowhere", kind: "reset" })).status).toBe(400)
    await control("POST", "/faults", { route: "*", kind: "timeout" })
    expect((await control("DELETE", "/faults")).body.faults).toEqual([])
    await control("POST", "/tokens/expire")
    expect((await call(psp, { method: "GET", path: "/v2/cob/x", token: bearer })).status).toBe(401)
    await control("PUT", "/tokens/ttl", { seconds: 5 })
    const fresh = await call(psp, {
      method: "POST",
      path: "/oauth/token",
      headers: { authorization: `Basic ${Buffer.from("pixgate:pixgate-secret").toString("base64")}` },
      body: { grant_type: "client_credentials" }
    })
    expect(fresh.body.expires_in).toBe(5)
  })

  it("counts the API's requests per route and the callbacks posted", async () => {
    const before = (await control("GET", "/requests/counts")).body
    expect(before.requests).toBe(psp.requests.length)
    expect(before.deliveries).toBe(psp.deliveries.length)
    await call(psp, { method: "GET", path: "/v2/gn/pix/enviados/id-envio/counted", token: bearer })
    await call(psp, { method: "GET", path: "/v2/gn/pix/enviados/id-envio/counted", token: bearer })
    await call(psp, { method: "GET", path: "/nowhere", token: bearer })
    const after = (await control("GET", "/requests/counts")).body
    expect(after.requests - before.requests).toBe(3)
    expect(after.routes["send.get"] - (before.routes["send.get"] ?? 0)).toBe(2)
    expect(after.routes.unknown - (before.routes.unknown ?? 0)).toBe(1)
  })
})
