import { Effect, Either, Schema, JSONSchema } from "effect"
import * as Requests from "./src/Requests.js"
import * as Errors from "./src/Errors.js"
const run = (s: any, x: unknown) => Effect.runSync(Effect.either(Requests.decode(s)(x)))
const show = (e: Either.Either<any, any>) =>
  Either.isLeft(e) ? JSON.stringify(Errors.body(e.left)) : JSON.stringify(e.right)
for (const c of [
  { amount: 10, clientName: " ", clientDoc: null, description: " x ", expiresIn: null },
  { amount: 10, clientName: 5, clientDoc: "1", expiresIn: "x" },
  {}
])
  console.log(show(run(Requests.CreateCharge, c)))
console.log(show(run(Requests.CreatePayout, {})))
console.log(JSON.stringify(JSONSchema.make(Requests.CreateCharge), null, 1))
console.log(
  JSON.stringify(
    Schema.encodeSync(Requests.CreateCharge)({ amount: 1050 as any, clientDocument: "52998224725" })
  )
)
