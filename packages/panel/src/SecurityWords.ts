/**
 * The panel's words about secrets, forged requests and passwords, in Brazilian Portuguese and
 * English: merged into each language's dictionary (`I18n.words`).
 */

/** Portuguese. */
export const pt = {
  crossSiteTitle: "Pedido recusado",
  crossSite:
    "Pedido recusado: este formulário foi enviado de outro site, não do painel. Nada foi alterado. Abra o painel pelo endereço dele e tente de novo.",
  passwordWeak: "Essa senha é fácil de adivinhar. Escolha outra.",
  passwordAdvice:
    "Dica: uma frase de quatro ou mais palavras que não formem um ditado conhecido, sem o seu nome ou e-mail.",
  secretSet: "configurado",
  secretNone: "não configurado",
  secretHidden:
    "O segredo e a chave de assinatura existem, mas só quem gerencia integrações (dono ou desenvolvedor) pode vê-los ou trocá-los.",
  secretHeaderLabel: "Enviar o segredo no cabeçalho",
  secretHeaderHint:
    "Desmarque para enviar só a assinatura (webhook-signature): quem vir uma mensagem não fica sabendo o segredo.",
  secretHeaderOn: "enviado em cada mensagem",
  secretHeaderOff: "não enviado: só a assinatura",
  secretHeaderState: "Segredo no cabeçalho",
  revealSecret: "Mostrar o segredo",
  revealPrompt:
    "Para ver o segredo de novo, confirme que é você: digite a sua senha ou um código do autenticador.",
  revealAnswer: "Senha ou código do autenticador",
  revealWrong: "Senha ou código incorreto. O segredo não foi mostrado.",
  secretShownNow:
    "Este é o segredo do seu webhook. Guarde-o agora: para vê-lo de novo será preciso confirmar a sua senha.",
  secretOnce:
    "Este é o novo segredo. Ele é mostrado agora; para vê-lo de novo será preciso confirmar a sua senha.",
  signingKeyState: "Chave de assinatura"
}

type SecurityWords = { readonly [K in keyof typeof pt]: string }

/** English. */
export const en: SecurityWords = {
  crossSiteTitle: "Request refused",
  crossSite:
    "Request refused: this form was sent from another site, not from the panel. Nothing was changed. Open the panel at its own address and try again.",
  passwordWeak: "This password is easy to guess. Choose another one.",
  passwordAdvice:
    "Tip: a sentence of four or more words that is not a well-known saying, without your name or e-mail.",
  secretSet: "set",
  secretNone: "not set",
  secretHidden:
    "The secret and the signing key exist, but only people who manage integrations (owner or developer) can see or change them.",
  secretHeaderLabel: "Send the secret in the header",
  secretHeaderHint:
    "Untick to send the signature only (webhook-signature): whoever sees a message does not learn the secret.",
  secretHeaderOn: "sent with every message",
  secretHeaderOff: "not sent: the signature only",
  secretHeaderState: "Secret in the header",
  revealSecret: "Show the secret",
  revealPrompt:
    "To see the secret again, confirm it is you: type your password or a code from your authenticator.",
  revealAnswer: "Password or authenticator code",
  revealWrong: "Wrong password or code. The secret was not shown.",
  secretShownNow: "This is your webhook's secret. Keep it now: seeing it again asks for your password.",
  secretOnce: "This is the new secret. It is shown now; seeing it again asks for your password.",
  signingKeyState: "Signing key"
}
