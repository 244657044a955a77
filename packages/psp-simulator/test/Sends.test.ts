import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PspSimulator } from "../src/index.js"
import { call, eventually, receiver, registerWebhook, token } from "./helpers.js"

let psp: PspSimulator.PspSimulator
let hook: Awaited<ReturnType<typeof receiver>>
let bearer: string

const sendBody = (valor = "12.34") => ({
  valor,
  pagador: { chave: "merchant@example.com", infoPagador: "Saque 1" },
  favorecido: { chave: "payee@example.com" }
})

beforeAll(async () => {
  psp = await PspSimulator.start({ pixKeys: ["merchant@example.com"] })
  hook = await receiver()
  bearer = await token(psp)
  await registerWebhook(psp, bearer, hook.url)
})

afterAll(async () => {
  await psp?.close()
  await hook?.close()
})

const callbacksFor = (idEnvio: string) =>
  hook.received
    .flatMap((item) => (item.body as { pix: Array<{ gnExtras?: { idEnvio?: string } }> }).pix)
    .filter((pix) => pix.gnExtras?.idEnvio === idEnvio)

describe("Efí-style sends", () => {
  it("accepts a send once per idEnvio, reports its status, and posts the callback when settled", async () => {
    const accepted = await call(psp, {
      method: "PUT",
      path: "/v3/gn/pix/payout1",
      token: bearer,
      body: sendBody()
    })
    expect(accepted.status).toBe(201)
    expect(accepted.body).toEqual({
      idEnvio: "payout1",
      e2eId: expect.stringMatching(/^E99999999/),
      valor: "12.34",
      horario: { solicitacao: expect.any(String) },
      status: "EM_PROCESSAMENTO"
    })
    const replay = await call(psp, {
      method: "PUT",
      path: "/v3/gn/pix/payout1",
      token: bearer,
      body: sendBody()
    })
    expect([replay.status, replay.body.e2eId]).toEqual([200, accepted.body.e2eId])
    expect(psp.state.sends.size).toBe(1)
    const different = await call(psp, {
      method: "PUT",
      path: "/v3/gn/pix/payout1",
      token: bearer,
      body: sendBody("99.00")
    })
    expect([different.status, different.body.nome]).toEqual([409, "id_envio_duplicado"])

    const pending = await call(psp, {
      method: "GET",
      path: "/v2/gn/pix/enviados/id-envio/payout1",
      token: bearer
    })
    expect(pending.body).toMatchObject({ idEnvio: "payout1", status: "EM_PROCESSAMENTO", valor: "12.34" })

    await psp.settleSend("payout1")
    const done = await call(psp, {
      method: "GET",
      path: "/v2/gn/pix/enviados/id-envio/payout1",
      token: bearer
    })
    expect(done.body).toMatchObject({
      endToEndId: accepted.body.e2eId,
      status: "REALIZADO",
      chave: "merchant@example.com",
      favorecido: { chave: "payee@example.com" },
      horario: { liquidacao: expect.any(String) }
    })
    expect(callbacksFor("payout1")).toEqual([
      {
        endToEndId: accepted.body.e2eId,
        valor: "12.34",
        horario: expect.any(String),
        chave: "merchant@example.com",
        status: "REALIZADO",
        tipo: "SOLICITACAO",
        gnExtras: { idEnvio: "payout1" }
      }
    ])
    await expect(psp.rejectSend("payout1")).rejects.toThrow(/already REALIZADO/)
  })

  it("a rejected send is NAO_REALIZADO with its reason, in the status and the callback", async () => {
    await call(psp, { method: "PUT", path: "/v3/gn/pix/payout2", token: bearer, body: sendBody() })
    await psp.rejectSend("payout2", { motivo: "Chave inexistente" })
    const status = await call(psp, {
      method: "GET",
      path: "/v2/gn/pix/enviados/id-envio/payout2",
      token: bearer
    })
    expect(status.body.status).toBe("NAO_REALIZADO")
    expect(status.body.gnExtras.erro.motivo).toBe("Chave inexistente")
    expect(callbacksFor("payout2")).toEqual([
      expect.objectContaining({
        status: "NAO_REALIZADO",
        gnExtras: { idEnvio: "payout2", erro: expect.objectContaining({ motivo: "Chave inexistente" }) }
      })
    ])
  })

  it("validates the request and answers 404 for an unknown idEnvio", async () => {
    const badId = await call(psp, {
      method: "PUT",
      path: "/v3/gn/pix/bad-id",
      token: bearer,
      body: sendBody()
    })
    expect([badId.status, badId.body.nome]).toEqual([400, "json_invalido"])
    const badValor = await call(psp, {
      method: "PUT",
      path: "/v3/gn/pix/p3",
      token: bearer,
      body: sendBody("1,00")
    })
    expect(badValor.status).toBe(400)
    const foreign = await call(psp, {
      method: "PUT",
      path: "/v3/gn/pix/p4",
      token: bearer,
      body: { ...sendBody(), pagador: { chave: "not-mine@example.com" } }
    })
    expect([foreign.status, foreign.body.nome]).toEqual([400, "chave_pagador_invalida"])
    expect(psp.state.sends.has("p3") || psp.state.sends.has("p4")).toBe(false)
    const unknown = await call(psp, {
      method: "GET",
      path: "/v2/gn/pix/enviados/id-envio/nope",
      token: bearer
    })
    expect([unknown.status, unknown.body.nome]).toEqual([404, "pix_nao_encontrado"])
  })

  it("settles on its own when started with sendOutcome settle", async () => {
    const auto = await PspSimulator.start({ pki: psp.tls, sendOutcome: "settle" })
    try {
      const autoToken = await token(auto)
      await call(auto, { method: "PUT", path: "/v3/gn/pix/auto1", token: autoToken, body: sendBody() })
      let status = ""
      for (let attempt = 0; attempt < 100 && status !== "REALIZADO"; attempt++) {
        const answer = await call(auto, {
          method: "GET",
          path: "/v2/gn/pix/enviados/id-envio/auto1",
          token: autoToken
        })
        status = answer.body.status
      }
      expect(status).toBe("REALIZADO")
    } finally {
      await auto.close()
    }
  })

  it("settles within the request when started with sendOutcome instant: REALIZADO in the answer, callback after", async () => {
    const instantHook = await receiver()
    const instant = await PspSimulator.start({
      pki: psp.tls,
      pixKeys: ["merchant@example.com"],
      sendOutcome: "instant"
    })
    try {
      const instantToken = await token(instant)
      await registerWebhook(instant, instantToken, instantHook.url)
      const answer = await call(instant, {
        method: "PUT",
        path: "/v3/gn/pix/now1",
        token: instantToken,
        body: sendBody()
      })
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({ idEnvio: "now1", status: "REALIZADO" })
      const status = await call(instant, {
        method: "GET",
        path: "/v2/gn/pix/enviados/id-envio/now1",
        token: instantToken
      })
      expect(status.body).toMatchObject({
        endToEndId: answer.body.e2eId,
        status: "REALIZADO",
        horario: { liquidacao: expect.any(String) }
      })
      const replay = await call(instant, {
        method: "PUT",
        path: "/v3/gn/pix/now1",
        token: instantToken,
        body: sendBody()
      })
      expect([replay.status, replay.body.status, replay.body.e2eId]).toEqual([
        200,
        "REALIZADO",
        answer.body.e2eId
      ])
      await eventually(() => instantHook.received.length > 0, "the send's callback")
      expect(instantHook.received.map((item) => (item.body as { pix: Array<unknown> }).pix)).toEqual([
        [expect.objectContaining({ status: "REALIZADO", gnExtras: { idEnvio: "now1" } })]
      ])
      // Settled already: nothing left to decide.
      await expect(instant.settleSend("now1")).rejects.toThrow(/already REALIZADO/)
    } finally {
      await instant.close()
      await instantHook.close()
    }
  })
})
