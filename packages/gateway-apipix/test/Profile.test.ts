/**
 * What a PSP profile fills in where the BCB standard leaves it open reaches the wire: the token
 * path (under the base URL, or a URL of its own) and scopes, the headers and query parameters on
 * every API call. And what a profile adds decides what the gateway can do: the standard alone
 * sends no payouts, Efí's profile does. Over an HttpClient that records each request.
 */
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { Effect, Layer, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { Client, Efi, Gateway, Profile, Settings } from "../src/index.js"

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** An HttpClient answering a token to any POST and `{}` to anything else, recording each request. */
const recording = () => {
  const seen: Array<Seen> = []
  const layer = Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request) =>
      Effect.sync(() => {
        const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
        seen.push({ method: request.method, url: request.url, headers: request.headers, body })
        const json = request.method === "POST" ? { access_token: "t0k3n", expires_in: 3600 } : {}
        return HttpClientResponse.fromWeb(request, new Response(JSON.stringify(json), { status: 200 }))
      })
    )
  )
  return { seen, layer }
}

const settings: Settings.ApiPixSettings = {
  baseUrl: "https://pix.bank.example",
  clientId: "id",
  clientSecret: Redacted.make("secret"),
  scopes: [],
  certificate: Settings.pem("CERT", "KEY"),
  pixKey: "recebimentos@example.com"
}

const callWith = (connection: Client.Connection) => {
  const { seen, layer } = recording()
  return Effect.runPromise(
    Client.make(settings, connection).pipe(
      Effect.flatMap((psp) => psp.call({ method: "GET", path: "/v2/cob/abc", query: { page: "1" } })),
      Effect.provide(layer)
    )
  ).then(() => seen)
}

describe("a PSP profile over the standard", () => {
  it("the standard's way: /oauth/token under the base URL, the standard's scopes, nothing added", async () => {
    const [token, call] = await callWith(Profile.standard)
    expect([token.method, token.url]).toEqual(["POST", "https://pix.bank.example/oauth/token"])
    expect(new URLSearchParams(token.body).get("scope")).toBe(Client.standardScopes.join(" "))
    expect(call.url).toBe("https://pix.bank.example/v2/cob/abc?page=1")
    expect(call.headers.authorization).toBe("Bearer t0k3n")
  })

  it("a bank's own: a token URL elsewhere, its scopes, a header and a query parameter on every call", async () => {
    const [token, call] = await callWith({
      tokenPath: "https://oauth.bank.example/oauth/token",
      scopes: ["cob.read", "pix.read"],
      headers: { "x-application-key": "app" },
      query: { "gw-app-key": "k1" }
    })
    expect(token.url).toBe("https://oauth.bank.example/oauth/token")
    expect(new URLSearchParams(token.body).get("scope")).toBe("cob.read pix.read")
    expect(new URL(call.url).searchParams.get("gw-app-key")).toBe("k1")
    expect(new URL(call.url).searchParams.get("page")).toBe("1")
    expect(call.headers["x-application-key"]).toBe("app")
    // The token call is the OAuth2 server's: the API's extras are not sent there.
    expect(token.headers["x-application-key"]).toBeUndefined()
  })

  it("settings that name scopes win over the profile's", async () => {
    const { seen, layer } = recording()
    await Effect.runPromise(
      Client.make({ ...settings, scopes: ["cob.write"] }, Efi.profile).pipe(
        Effect.flatMap((psp) => psp.call({ method: "GET", path: "/v2/pix" })),
        Effect.provide(layer)
      )
    )
    expect(new URLSearchParams(seen[0].body).get("scope")).toBe("cob.write")
  })

  it("what the profile adds is what the gateway can do: sends and infractions only with Efí's", async () => {
    const noPsp: Client.PspClient = { call: () => Effect.die("not called"), tokensIssued: () => 0 }
    const standard = Gateway.make(settings, noPsp, Profile.standard)
    const efi = Gateway.make(settings, noPsp)
    expect(standard.sender).toBeUndefined()
    expect(standard.capabilities).toMatchObject({
      charges: true,
      dueDateCharges: true,
      refunds: true,
      sends: false,
      infractions: false
    })
    expect(standard.infractionDefence).toBeUndefined()
    expect(standard.jobs).not.toHaveProperty("apipix.infractions")
    expect(efi.sender).toBeDefined()
    expect(efi.infractionDefence).toBeDefined()
    expect(efi.jobs).toHaveProperty("apipix.infractions")
    expect(efi.capabilities).toMatchObject({ sends: true, recurring: true, infractions: true })
    expect(Efi.profile.scopes).toEqual(Settings.defaults.scopes)
  })
})
