/**
 * Markup that carries an order or code (spec §7.1 "Markup", widened by issue 12): an HTML comment addressed to the
 * model, an element hidden by its style whose text is an order, a tag that runs or loads something.
 *
 * Narrowed to what addresses the model or runs: "<!-- prettier-ignore -->", "<!-- Note to reviewers: … -->",
 * "<!-- AI-generated summary below -->" and "<!-- If you are reading this, the build is broken -->" are notes to
 * tools or people; "<span style="display:none">Loading…</span>" hides no order; "<style scoped>", "<script setup>"
 * and "avoid <iframe> embeds" name a tag.
 */
import { ASSISTANT, gated, type InjectionPattern, row } from "./shared.js"

/** Names an injected comment calls the model by. */
const MODEL =
  String.raw`(?:ai\s(?:systems?|models?|agents?|assistants?|tools?|crawlers?)|${ASSISTANT}|language\smodels?|ais|llms` +
  String.raw`|agents|assistants|models|bots|claude|gpt|chatgpt|copilot` +
  String.raw`|gemini|bard|llama|cursor)`
// Inside a comment: text that addresses the model or gives it an order.
const ADDRESSED =
  String.raw`\b(?:ignore|disregard|skip)\sthe\srest\sof\s(?:this|the)\s(?:page|document|file|text|content|message)\b|` +
  String.raw`\b(?:ignore|disregard|forget)\s(?:(?:all|the|your|any)\s){0,2}` +
  String.raw`(?:previous|prior|above|earlier|preceding|instructions|rules)\b|\bnew\s` +
  String.raw`(?:instructions|rules|system\sprompt)\b|\bsystem\sprompt\b` +
  String.raw`|\b(?:ai|assistant|llm|agent|model)s?\s?[:,]\s|\byou\s(?:must|should|will|are\snow)\b` +
  String.raw`|\b(?:claude|gpt|chatgpt|copilot|gemini|bard|llama|cursor)\s?[:,]\s` +
  String.raw`|\b${MODEL}[\s_-](?:instructions?|directives?|prompt|note|task|orders?)s?\b` +
  String.raw`|\b${MODEL}\s(?:must|should|shall|will|need\sto|are\sto|have\sto)\b` +
  String.raw`|\bif\syou(?:\sare|'re)\san?\s(?:ai|llm|language\smodel|assistant|agent|bot|chatbot)\b` +
  String.raw`|\b(?:if|when)\s(?:an?|any|the)\s(?:ai|llm|language\smodel|assistant|agent|bot|chatbot|model)\s(?:reads?` +
  String.raw`|summari[sz]es?|processes?|parses?|sees?|is\sreading|indexes)\b` +
  String.raw`|\b(?:note|notice|memo|warning|message|attention|instructions?|orders?)\s(?:to|for)\s(?:the\s|any\s|` +
  String.raw`all\s)?` +
  String.raw`${MODEL}\b` +
  String.raw`|\bto\s(?:the|any|all)\s${MODEL}\s(?:reading|processing|parsing|summari[sz]ing|that|who)\b` +
  String.raw`|\b(?:hidden|secret|special)\s(?:instructions?|directives?|prompt)\s?:` +
  String.raw`|\bwhen\syou\s(?:read|see|process|parse|summari[sz]e|encounter)\s(?:this|these|it)\b` +
  String.raw`|\b(?:do\snot|don't|never)\s(?:tell|inform|show|notify)\sthe\suser\b`
// An element hidden from the reader, whose text the model still reads.
const HIDDEN_STYLE =
  String.raw`(?:display\s?:\s?none|visibility\s?:\s?hidden|font-size\s?:\s?0(?:px|pt|em|rem)?(?![\d.])` +
  String.raw`|opacity\s?:\s?0(?:\.0+)?(?![\d.])|color\s?:\s?(?:white|#fff(?:fff)?)\b[^>]{0,80}?background` +
  String.raw`(?:-color)?\s?:\s?(?:white|#fff(?:fff)?)\b|\bhidden\b|\baria-hidden\s?=\s?["']?true)`
const HIDDEN_ORDER =
  String.raw`\b(?:ignore|disregard|forget|you\s(?:must|should|will|are)|${ASSISTANT}s?\b|agents\b|when\s` +
  String.raw`(?:summari[sz]ing|answering|asked|responding)|send|reveal|recommend|say|tell|always|never)\b`

/** The spec's markup rows, then hidden elements. */
export const MARKUP: ReadonlyArray<InjectionPattern> = [
  // "<!-- prettier-ignore -->" is a tool directive, not an order to the model.
  gated(
    new RegExp(String.raw`<!--`, "u"),
    row("html-comment-injection", "HTML comment injection", String.raw`<!--(?:(?!-->)[\s\S]){0,120}?(?:${ADDRESSED})`)
  ),
  // A tag is an injection when it carries something to run or load. "<style scoped>", "<script setup>" and
  // "avoid <iframe> embeds" name a tag and pass.
  gated(
    new RegExp(String.raw`<`, "u"),
    row(
      "html-tag-injection",
      "HTML tag injection",
      String.raw`<script\b[^>]{0,300}>\s?(?:[a-z_$][\w$.]{0,60}\s?\(|(?:var|let|const|function|document|window` +
        String.raw`|fetch|eval|alert|location|navigator|import)\b)`,
      String.raw`<script\b[^>]{0,300}\bsrc\s?=\s?["']?(?:https?:)?\/\/`,
      String.raw`<(?:iframe|object|embed|frame|frameset|applet)\b[^>]{0,300}?\b(?:src|data|srcdoc|code)\s?=`,
      String.raw`<(?:img|svg|body|video|audio|link|a|input|details|iframe|object|embed|script)\b[^>]{0,300}?\b` +
        String.raw`(?:on[a-z]{3,20}\s?=|(?:src|data|href|srcdoc|action|formaction)\s?=\s?["']?\s?` +
        String.raw`(?:javascript|vbscript|data:text\/html))`,
      String.raw`<meta\b[^>]{0,200}?http-equiv\s?=\s?["']?refresh\b[^>]{0,200}?\burl\s?=`
    )
  ),
  // "<span style="display:none">Loading…</span>" hides a spinner's text, not an order.
  gated(
    /display|visibility|font-size|opacity|color|hidden/u,
    row(
      "hidden-html-instruction",
      "hidden HTML instruction",
      String.raw`<[a-z][a-z0-9]{0,10}\b[^>]{0,200}?${HIDDEN_STYLE}[^>]{0,200}>[^<\n]{0,200}?${HIDDEN_ORDER}`
    )
  )
]
