/**
 * The PSP simulator: a local bank speaking the API Pix standard and an Efí-style send API, and a
 * local Asaas speaking its own REST API v3 (`AsaasSimulator`).
 */

export * as AsaasSimulator from "./asaas/AsaasSimulator.js"
export type { DecideOptions, PayOptions, RefundOutcome, SendOutcome } from "./Bank.js"
export type { CallbackDelivery, CallbackMode, HeldCallback } from "./Callbacks.js"
export * as Certificates from "./Certificates.js"
export type { Fault, FaultKind, RouteName } from "./Faults.js"
export type { ConcludeInfracao, Infracao, InfracaoStatus, OpenInfracao } from "./Infracoes.js"
export type { Cob, Devolucao, ReceivedPix, Send, SendStatus, State } from "./Model.js"
export type { OAuthClient } from "./OAuth.js"
export * as PspSimulator from "./PspSimulator.js"
export type { RequestRecord } from "./Server.js"
