/**
 * The Asaas gateway as layers: `layer` over any `HttpClient`, and `layerNode` over Node's
 * client with keep-alive agents that bound connecting (`connectTimeoutMs`) and trust the
 * settings' CA. Either provides `BankGateway.LiveGateway`, which `Engine.layer` picks up for live
 * keys, and fails with a `SettingsError` naming the setting when the settings cannot work.
 */
import type { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { type BankGateway, BankGateway as Port } from "@pixgate/core"
import { Effect, Layer } from "effect"
import * as Agent from "./Agent.js"
import * as Check from "./Check.js"
import * as Client from "./Client.js"
import * as Gateway from "./Gateway.js"
import { type AsaasSettings, resolve, type SettingsError } from "./Settings.js"
import * as Webhooks from "./Webhooks.js"

/** The gateway over the HttpClient in context. */
export const layer = (
  settings: AsaasSettings
): Layer.Layer<BankGateway.LiveGateway, SettingsError, HttpClient.HttpClient> =>
  Layer.effect(
    Port.LiveGateway,
    Effect.flatMap(Check.checked(settings), (valid) =>
      Effect.map(Client.make(resolve(valid)), (client) => Gateway.make(valid, client))
    )
  )

/** Node's HttpClient for Asaas: connect time-out, keep-alive, the settings' CA. */
export const httpClientNode = (settings: AsaasSettings): Layer.Layer<HttpClient.HttpClient> =>
  NodeHttpClient.layerWithoutAgent.pipe(
    Layer.provide(Agent.layer(settings.ca, resolve(settings).connectTimeoutMs))
  )

/** The gateway on Node. */
export const layerNode = (settings: AsaasSettings): Layer.Layer<BankGateway.LiveGateway, SettingsError> =>
  layer(settings).pipe(Layer.provide(httpClientNode(settings)))

/** A client of the settings over the HttpClient in context (for `register` and `Check.probe`). */
export const client = (settings: AsaasSettings) => Client.make(resolve(settings))

/**
 * Registers `webhookUrl` (the engine's `<base>/bank/callbacks/<secret>`) with Asaas for the
 * gateway's events and the settings' token; `email` gets Asaas's delivery-problem notices.
 */
export const registerWebhook = (
  settings: AsaasSettings,
  webhookUrl: string,
  email?: string
): Effect.Effect<void, BankGateway.GatewayFailure, HttpClient.HttpClient> =>
  Effect.flatMap(client(settings), (c) => Webhooks.register(resolve(settings), c, webhookUrl, email))

/** Asks Asaas whether the settings work (`Check.probe`), over the HttpClient in context. */
export const probe = (settings: AsaasSettings): Effect.Effect<void, SettingsError, HttpClient.HttpClient> =>
  Effect.flatMap(client(settings), (c) => Check.probe(settings, c))
