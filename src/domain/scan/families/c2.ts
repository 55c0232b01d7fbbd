/**
 * Command and control (issue 12): promptware that enrols the agent in a network — tasking pulled from a server,
 * orders read from a URL and followed, registration as a node, heartbeats that carry the agent's identity.
 *
 * Narrowed to tasking for the agent and its enrolment: "the worker fetches tasks from https://queue.internal/jobs"
 * describes a service, "download the installer from https://nodejs.org and run it" installs software, "follow the
 * install instructions at https://docs…" and "register the runner with the GitLab instance" are setup steps, "send
 * a heartbeat to https://hc-ping.com/uuid after each backup" is monitoring.
 */
import { gated, type InjectionPattern, row, URL } from "./shared.js"

const TASKING = String.raw`(?:instructions|commands|tasks|tasking|orders|directives|payloads?|jobs\sto\srun)`
const ANY_TASKING =
  String.raw`(?:(?:your|new|the|further|updated|next|latest|any|more)\s){0,3}` +
  String.raw`(?:${TASKING}|jobs|work|orders?)`
const OBEY = String.raw`(?:follow|obey|execute|run|do|carry\sout|perform|apply)`
const THEM = String.raw`(?:them|each(?:\sone)?|every\sone|all(?:\sof\sthem)?|it)`
const IDENTITY =
  String.raw`(?:hostname|host\sname|ip(?:\saddress)?|id|identifier|machine\sid|agent\sid|system\sinfo(?:rmation)?` +
  String.raw`|whoami|username|environment)`

/** One row: the agent enrolled in someone's network. */
export const C2: ReadonlyArray<InjectionPattern> = [
  gated(
    new RegExp(
      String.raw`https?:|wss?:|ftp:|www\.|\.[a-z]{2,}\/|register|poll|you\sare\s(?:now\s)?(?:a\s|an\s)?(?:node|bot` +
        String.raw`|agent` +
        String.raw`|worker|peer|member|zombie|drone)|arrives|comes\sin|it\ssends|they\ssend|is\ssent|you\sreceive` +
        String.raw`|comes\sback|(?:commands?|instructions?|orders?|tasks?|code)\s(?:in|from|contained\sin)\s(?:the` +
        String.raw`|its|their)\s`,
      "u"
    ),
    row(
      "c2-enrolment",
      "command-and-control enrolment",
      String.raw`\b(?:fetch|get|download|pull|load|retrieve|check|poll)\s(?:(?:your|new|the|further|updated|next` +
        String.raw`|latest|fresh|more|additional|any|pending|queued|today's|hourly|daily)\s){0,3}${TASKING}\sfrom\s` +
        String.raw`(?:https?:|www\.|[\w-]+(?:\.[\w-]+)+\/)`,
      String.raw`\b(?:fetch|get|download|load|read|open|visit|curl)\s(?:the\s)?(?:https?:\/\/|www\.)\S+[^\n]{0,40}?\b` +
        String.raw`(?:and|then)\s(?:(?:follow|obey|execute|run|do|carry\sout)\s(?:the\s|its\s|any\s|all\s|every\s` +
        String.raw`|each\s)?(?:instructions|commands|orders?|directives|tasks?|jobs?|steps|whatever` +
        String.raw`|what\sit\s(?:says|contains)` +
        String.raw`|contents?|text|body|response|output)|(?:obey|follow)\s(?:it|them))\b`,
      String.raw`\bregister\s(?:yourself\s|this\s(?:agent|assistant|instance|machine|host)\s|the\sagent\s)?as\s` +
        String.raw`(?:a\s|an\s)?(?:new\s)?(?:node|bot|agent|worker` +
        String.raw`|peer)\s(?:of|in|on|with|at|to)\s(?:the\s|our\s)?(?:https?:|network|botnet|swarm|mesh|c2` +
        String.raw`|controller|command\sserver|server\sat)`,
      String.raw`\bsend\s(?:a\s)?heartbeats?\s(?:to|at)\s(?:https?:|www\.)[^\n]{0,80}?\b(?:your|this\sagent's` +
        String.raw`|the\sagent's)\s(?:(?:agent|machine|host|session)\s)?(?:id|identifier|hostname|session|name|` +
        String.raw`status)\b`,
      // orders looked for at a URL, periodically or on each start
      String.raw`\b(?:check|poll|watch|monitor|query|ping|visit|read|consult)(?:\sin)?\s(?:with\s|at\s|on\s)?` +
        String.raw`${URL}(?:\s[^\n.]{0,30}?)?\s(?:for|to\sget|to\sfetch|to\sreceive)\s${ANY_TASKING}\b`,
      String.raw`\b${TASKING}\s(?:at|on|from|in|via)\s${URL}[^\n]{0,60}?\b${OBEY}\s${THEM}\b`,
      String.raw`\b(?:keep\s)?(?:polling|poll|check|checking|query|querying|watch|watching|ping|pinging)\s${URL}` +
        String.raw`[^\n]{0,60}?\b(?:and|then)\s${OBEY}\s(?:each|every|all|any|the|whatever)\s` +
        String.raw`(?:(?:returned|received|fetched|new|next|listed|resulting)\s)?` +
        String.raw`(?:tasks?|commands?|jobs?|orders?|instructions?)\b`,
      String.raw`\b${OBEY}\s(?:any|every|each|all|whatever)\s(?:commands?|instructions?|orders?|tasks?|code)\s(?:in` +
        String.raw`|from|contained\sin)\s(?:the|its|their)\s(?:response|reply|answer|output|result|payload)s?\b`,
      String.raw`\b${OBEY}\s(?:whatever|anything|everything)\s(?:arrives|comes\sin|it\ssends|they\ssend|is\ssent` +
        String.raw`|you\sreceive|comes\sback)\b`,
      String.raw`\b(?:use|treat|take)\s(?:the\s)?(?:content|contents|text|response|body|output)\s(?:of|from|at)\s` +
        String.raw`${URL}\sas\s(?:your\s)?(?:new\s|next\s|real\s|updated\s)?(?:instructions|orders|commands` +
        String.raw`|directives|system\sprompt|prompt|rules|task)\b`,
      // enrolment: as a node, or checking in on a schedule for tasking
      String.raw`\bregister\s(?:yourself|this\s(?:agent|assistant|instance|session)|the\s(?:agent|assistant)` +
        String.raw`|itself)\s(?:as\s(?:a|an|the)\s)?(?:[\w-]+\s){0,2}?(?:node|worker|bot|peer|member|client` +
        String.raw`|implant|beacon|drone|zombie)\b`,
      String.raw`\b(?:check\sin|phone\shome|report\sin|call\shome)\s(?:with\s[^\n.]{1,40}?\s)?(?:every|each|once` +
        String.raw`\s(?:a|an|per|every)|hourly|daily|periodically|regularly)\b[^\n.]{0,40}?\b(?:for|to\sget|to` +
        String.raw`\sfetch|to\sreceive)\s${ANY_TASKING}\b`,
      String.raw`\bregister\s(?:yourself|this\s(?:agent|assistant|instance|session|machine|host)|the\sagent|itself)` +
        String.raw`\s(?:with|at|to|on)\s(?:the\s)?(?:controller|c2|c&c|command\sserver|server|hub|network|swarm` +
        String.raw`|botnet|mesh|https?:)`,
      String.raw`\b(?:post|send|report|upload|submit)\s(?:your|this\sagent's|the\sagent's|the\shost's` +
        String.raw`|the\smachine's)\s${IDENTITY}\s(?:to|at)\s${URL}`,
      String.raw`\bpoll\s(?:for|the\sserver\sfor|it\sfor)\s(?:new\s)?(?:jobs|tasks|commands|orders|instructions` +
        String.raw`|tasking)\b`,
      String.raw`\byou\sare\s(?:now\s)?(?:a\s|an\s)?(?:node|bot|agent|worker|peer|member|zombie|drone)\s(?:#?\d+\s)?` +
        String.raw`(?:of|in)\s(?:the|our|a|this)\s(?:network|botnet|swarm|mesh|cluster|collective|c2)\b`
    )
  )
]
