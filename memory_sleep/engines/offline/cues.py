"""Word patterns the offline engine recognises, per category, in English and a few other languages."""

from __future__ import annotations

import re

from memory_sleep.language import SECTION_NAMES


def _words(*patterns: str) -> re.Pattern[str]:
    return re.compile(r"(?:" + "|".join(patterns) + r")", re.IGNORECASE)


# "14:32", "[14:32:07]", "**08:30 UTC** :": the zone belongs to the time, not to the text after it
TIMESTAMP = re.compile(
    r"^\s*(?:\*\*)?\[?\d{1,2}:\d{2}(?::\d{2})?(?:\s?(?:UTC|GMT|[A-Z]{1,3}T|[+-]\d{1,2}(?::?\d{2})?))?\]?(?:\*\*)?"
    r"\s*[-–—:]?\s*"
)
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")  # a code fence's opening or closing line
CHECKBOX_OPEN = re.compile(r"^\s*(?:[-*+]\s+)?\[ \]\s*")
CHECKBOX_DONE = re.compile(r"^\s*(?:[-*+]\s+)?\[[xX✓]\]\s*")
BOLD_KEY = re.compile(r"^\s*\*\*([^*\n]{1,60}?)(?::\*\*|\*\*:)\s*(.*)$", re.DOTALL)

NARRATION = _words(
    r"^(?:ok(?:ay)?[,.]?\s+)?(?:let me|let's|now i'?ll|now i will|i'?ll (?:now |first |start|check|look|open|try|run|go)|"
    r"i'?m going to|i am going to|going to (?:check|look|open|start|try|run|read)|next,? i'?ll|first,? i'?ll|"
    r"looking (?:at|into)|checking (?:the|if|whether|on)|starting (?:to|on|with)|reading (?:the|through)|"
    r"opening (?:the|a)|trying (?:to|again)|time to|about to|moving on|alright)",
    r"^(?:ahora voy a|voy a|jetzt (?:schaue|prüfe)|ich (?:schaue|prüfe))",
)
DEBUG = _words(
    r"\b0x[0-9a-f]{8,}\b",
    r"\bpasted (?:from|below|here)\b",
    r"^Traceback \(most recent call last\)",
    r"^\s*File \"[^\"]+\", line \d+",
    r"^\s*at [\w.$<>]+\(.*:\d+\)",
    r"^\$ \S",
    r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}\S*\s+(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)\b",
    r"^(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)[: \]]",
    r"^(?:\d{1,2}:\d{2}(?::\d{2})?\s+)?\[(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)\]",
    r"^[0-9a-f]{7,40} \S",
    r"\bexit (?:code|status) \d+",
    r"^[\w. ]{0,40}(?:Error|Exception)\b:",
    r"^npm (?:ERR|WARN)",
    r"^\s*at Object\.",
)
BRIEFING_HEADING = _words(
    r"^(?:focus|watch|watch list|heads up|agenda|overdue)\b",
    r"^(?:today|open|top priorities|priorities|open action items|action items|key context|context|warnings|"
    r"recently decided|deadlines|blockers|risks|due soon|this week|reminders)\b",
)
RECALLED = _words(
    r"morning briefing",
    r"pasted from (?:the )?briefing",
    r"memory-sleep recall",
    r"from briefing\.md",
)

DECISION = _words(
    r"\b(?:mov(?:e|es|ed|ing)|switch(?:ed|ing)?|migrat(?:e|ed|ing)) from\b.{0,60}\bto\b",
    # "Switching Octans from a local Llama to Claude Haiku", "Back from Buildkite to Woodpecker for CI"
    r"\b(?:mov(?:e|es|ed|ing)|switch(?:es|ed|ing)?|migrat(?:e|es|ed|ing))(?: [\w-]+){1,3} from\b.{1,60}\bto\b",
    r"[.;]\s*reason\s*:",
    r"^[\w /-]{2,40}:\s*[\w.-]+\.\s*reason\b",
    r"决定|決めた|に決定|beschlossen",
    r"\bwon'?t fix\b",
    r"\bwill (?:run|use|move|ship|stay|keep|be hosted|go)\b",
    r"^decision\b",
    r"\bgoing forward\b",
    r"\bhold off on\b",
    r"\bpostpone[ds]?\b",
    r"\bdecided\b",
    r"\bdecision\b",
    r"\bwe(?:'ll| will) (?:go with|use|stick with|keep)\b",
    r"\bgoing with\b",
    r"\b(?:chose|choose|chosen)\b",
    r"\bagreed\b",
    r"\bsettled on\b",
    r"\bswitch(?:ed|ing)? (?:to|from|back|over)\b",
    # "switching auth to in-house sessions", "Replacing pgvector with Meilisearch", "Dropping WorkOS for Pavo"
    r"\bswitch(?:es|ed|ing)?(?: [\w-]+){1,3} (?:over )?to\b",
    r"\breplac(?:e|es|ed|ing)\b.{1,60}\b(?:with|by)\b",
    r"(?-i:\b(?:[Dd]rop|[Dd]itch|[Aa]bandon)(?:s|es|ped|ed|ping|ing)? (?:the )?[A-Z][\w.-]*\b(?! an? (?:note|line)\b))",
    r"\b(?:drop|ditch|abandon)\w*\b.{1,40}\bin favou?r of\b",
    r"(?:^|\n)\s*(?:[-*+]\s+)?(?:considered|alternatives?(?: considered)?|runner-up)\s*:",  # the options weighed
    r"\bsettled\s*[:—–-]",
    r"\bersetz(?:en|t|te|ten)\b.{1,40}\bdurch\b",
    r"\b(?:wechseln|wechselt|gewechselt|umsteigen|umgestiegen)\b.{0,40}\b(?:zu|auf)\b",
    r"\b(?:reemplaz|sustitu)\w*\b.{1,40}\b(?:por|con)\b",
    r"\b(?:cambiamos|migramos)\b(?: de\b.{1,40})? a\b",
    r"\ben (?:lugar|vez) de\b",
    r"改用|换成|替换为|弃用|に切り替え|に置き換え|に移行",
    r"\brevers(?:e|ed|ing)\b",
    r"\brevert(?:ed|ing)? (?:to|the decision)\b",
    r"\binstead of\b",
    r"\bfrom now on\b",
    r"\bno longer\b",
    r"\bmov(?:e|es|ed|ing) to\b",
    r"\bmigrat(?:e|ing) (?:to|from)\b",
    r"\bopted\b",
    r"\bpolicy\b",
    r"\bgo(?:ing)? forward\b",
    r"\bdrop(?:ped|ping)? (?:support|the idea)\b",
    r"\bentschieden\b",
    r"\bentscheidung\b",
    r"\bdecid(?:imos|ido)\b",
    r"决定",
    r"決定",
)
LESSON = _words(
    r"学んだこと|教わった|经验",
    r"\blearned the hard way\b",
    r"^(?:\d+[.)]\s*)?remember\s*:",
    r"\bmerke\s*:",
    r"\blecci[oó]n aprendida\b",
    r"\bnunca\b",
    r"\bimmer\b.{0,40}\bnicht\b",
    r"学到",
    r"注意",
    r"\blessons?\b",
    r"\blearn(?:ed|t)\b",
    r"\bTIL\b",
    r"\bturns out\b",
    r"\bnote to self\b",
    r"\bgotcha\b",
    r"\broot cause\b",
    r"\bcaveat\b",
    r"\bpitfall\b",
    r"\bremember to\b",
    r"\bnever again\b",
    r"\bmistake\b",
    r"\btakeaway\b",
    r"\bbeware\b",
    r"\bthe trick (?:is|was)\b",
    r"\bin future\b",
    r"\bnext time\b",
    r"\bmake sure to\b",
    r"\balways (?:run|check|use|set|pin|ask|test)\b",
    r"\bnever (?:run|use|deploy|push|merge)\b",
    r"\bgelernt\b",
    r"\blección\b",
    r"\baprendí\b",
    r"教训",
    r"教訓",
)
ACTION = _words(
    # a line that starts with an action section's name: "**下一步**: ...", "Next steps: ..."
    r"^\W*(?:" + "|".join(re.escape(name) for name in SECTION_NAMES["action"]) + r")\W*[:：]",
    r"^(?:\w+:\s+)?(?:get|send|write|review|renew|schedule|document|migrate|fix|clean up|file|prepare|update|ask|book|follow up on|set up|rotate|draft|call|email|ping|check with|order|buy|pay|submit|finish|deploy|upgrade|reply to|invite)\s+\S+.*\b(?:by|before|due|until|bis)\b",
    r"\bTODO\b",
    r"\bto-?do:",
    r"\baction items?\b",
    r"\bneed(?:s)? to\b",
    r"\bhave to\b",
    r"\bmust\b",
    r"\bfollow[- ]up\b",
    r"\bremind \w+ (?:to|about)\b",
    r"\bdeadline\b",
    r"\bdue\b",
    r"\bpending\b",
    r"\bwaiting on\b",
    r"\bask \w+ (?:to|about|for)\b",
    r"\bschedule\b",
    r"\brenew\b",
    r"\bsend \w+",
    r"\bprepare\b",
)
RELATIONSHIP = _words(
    # a person named with the organisation they are from: "Ana (Contoso) wants ...", "Ines (Fabrikam) ist ..."
    r"(?-i:^[A-ZÀ-Þ][a-zß-ÿ]+ \([A-ZÀ-Þ][a-zß-ÿ][\w&.' -]{0,30}\) [a-zß-ÿ])",
    r"\bworking with \w+ (?:from|at)\b",
    r"\bworks from\b",
    r"\bbased in\b",
    r"\b(?:is|lives|works|moved) (?:in|to) [A-Z][a-z]+/[A-Z][\w]+",
    r"\btime ?zone\b",
    r"\b\w+'s (?:manager|boss|lead|report|birthday|partner|timezone)\b",
    r"\bcontact\s*:",
    r"\bbirthday\b",
    r"\bis (?:out|off|away|on leave|on vacation) (?:from|until|till|for)\b",
    r"\b(?:is|gets) (?:strict|picky|particular|annoyed|allergic)\b",
    r"\bmet \w+ (?:from|at)\b",
    r"\b(?:head|vp|director) of\b",
    r"\bdecision-?maker\b",
    r"\bgithub (?:handle|is)\b",
    r"[\w.+-]+@[\w-]+\.[\w.]+",
    r"\bprefers?\b",
    r"\blikes\b",
    r"\bdislikes\b",
    r"\bhates\b",
    r"\bowns\b",
    r"\bhandles\b",
    r"\bin charge of\b",
    r"\bpoint of contact\b",
    r"\bcontact (?:for|is)\b",
    r"\breports to\b",
    r"\bjoined\b",
    r"\bnew hire\b",
    r"\bintroduced\b",
    r"\b(?:is|as) (?:our|the|a|their) (?:new )?[\w-]*\s?(?:lead|manager|engineer|designer|owner|pm|cto|ceo|"
    r"founder|contact|reviewer|contractor|consultant|client|customer|head)\b",
    r"\bout of office\b",
    r"\bon (?:leave|vacation)\b",
    r"\btime ?zone\b",
    r"\bworks (?:on|with)\b",
    r"\b(?:his|her|their) email\b",
)
STATUS = _words(
    r"\bwent (?:green|yellow|red)\b",
    r"\bback on track\b",
    r"\bis blocked on\b",
    r"\bon track\b",
    r"\bdelayed\b",
    r"\bat risk\b",
    r"\bshipped\b",
    r"\blaunched\b",
    r"\breleased\b",
    r"\bwent live\b",
    r"\bis live\b",
    r"\bblocked\b",
    r"\bblocker\b",
    r"\bunblocked\b",
    r"\bon hold\b",
    r"\bpaused\b",
    r"\bcancel(?:l)?ed\b",
    r"\bcompleted\b",
    r"\bfinished\b",
    r"\bkicked off\b",
    r"\bmilestone\b",
    r"\brejected\b",
    r"\brolled back\b",
    r"\boutage\b",
    r"\bincident\b",
    r"\bdeprecated\b",
    r"\bshut (?:it )?down\b",
    r"\bwrapped up\b",
    r"\bsunset\b",
    r"\bgo-?live\b",
    r"\bdeployed .{0,40}\bto (?:prod|production|live)\b",
    r"\b(?:submitted|approved) (?:to|by|for) (?:the )?app store\b",
    r"\bfeature freeze\b",
    r"\bcode freeze\b",
    r"\bbeta\b",
    r"\bGA\b",
    r"\bis done\b",
)
FINISHED = _words(
    r"\b(?:is|are|was|now) (?:done|complete|completed|finished|cancel(?:l)?ed|shut down|over|dead)\b",
    r"\bcancel(?:l)?ed\b",
    r"\bshut (?:it |the \w+ )?down\b",
    r"\bwrapped up\b",
    r"\bsunset(?:ted)?\b",
    r"\bproject (?:closed|complete|completed|finished)\b",
    r"\bwind(?:ing)? down\b",
    r"\bkilled the project\b",
)
BLOCKED = _words(r"\bblocked\b", r"\bblocker\b", r"\bstuck on\b", r"\brejected\b", r"\boutage\b")
DONE = _words(
    r"^完成[：:]",
    r"^完了[：:]",
    r"^erledigt[：:]",
    r"^hecho[：:]",
    r"[:,—–-]\s*done\b",
    r"\berledigt\b",
    r"完了",
    r"已完成",
    r"✅",
    r"\bdelivered\b",
    r"^\s*(?:[-*+]\s+)?(?:✅|☑️|✔️?)",
    r"^\s*(?:[-*+]\s+)?(?:done|finished|completed|closed|resolved|sent|shipped)\s*[:!-]",
    r"\b(?:is|was|now) (?:done|sent|fixed|resolved|merged|closed)\b",
    r"\bfinally (?:sent|fixed|done|renewed|merged)\b",
)
# a value that changed: "retention changed 7 days → 365 days", "got rewritten from Rust to Go",
# "Corvus bumped Node 22.9 → 20.12" (a fact, however routine "bumped" sounds)
VALUE_CHANGED = _words(
    r"\b(?:changed|rewritten|bumped|upgraded|downgraded|raised|lowered|increased|reduced|scaled|resized|renamed|"
    r"extended|shortened|expanded|shrunk|doubled|halved)\b.{0,40}"
    r"(?:\bfrom\b.{1,40}\bto\b|→|->)",
)
FACT = _words(
    r"(?-i:\b[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}\b)",
    r"\b(?:env|setting|config|variable)\b.{0,30}\b(?:is|=)\s*\S",
    r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b",
    r"\bchannel\b.{0,20}#[a-z][\w-]{2,}",
    r"\bs3://|gs://",
    r"\brenews? on\b",
    r"\bexpires? on\b",
    r"\bresolves to\b",
    r"\blistens on\b",
    r"\b(?:url|host|hostname|port|bucket|channel|repo|dashboard|endpoint|timezone|slo|sla|quota|retention|schedule|owner)\s*(?:is|:|=)",
    r"\bflag\b.{0,40}\b(?:is )?(?:on|off|enabled|disabled)\b",
    r"\b(?:quot(?:e|ed|es)|contract|invoic(?:e|ed)|price[ds]?|budget|billed|charged)\b.{0,30}[$€£]\s?\d",
    r"\bvon\b.{1,30}\bauf\b.{1,30}\b(?:erhöht|gesenkt|geändert|skaliert|verschoben|reduziert|verkleinert|vergrößert)",
    r"从.{1,30}(?:改|调|扩|缩|升|降|增|减)\w{0,2}(?:为|到|成|至)",
    r"から.{1,30}に(?:変更|増や|減ら|引き上げ|引き下げ|縮小|拡大)",
    # "Pavo launches on 2026-10-16": a date the project is planned around
    r"\b(?:launch(?:es)?|ships|goes live|kicks off|freezes|cuts over) on \d{4}-\d{2}-\d{2}\b",
    r"\bcorrection\s*:",
    VALUE_CHANGED.pattern,
    r"\b[\w.-]+\.(?:internal|local|com|io|net|org|dev|app)(?::\d+)?\b",
    r"\bport \d+\b",
    r"https?://",
    r"\bv\d+\.\d+",
    r"\bruns on\b",
    r"\blives (?:in|at|on)\b",
    r"\bis (?:at|on|in) \S",
    r"\bendpoint\b",
    r"\bbudget\b",
    r"\bquota\b",
    r"\blimit (?:is|of)\b",
    r"\bSLA\b",
    r"\bpricing\b",
    r"\bcosts?\b \$?\d",
    r"[$€£]\s?\d",  # an amount of money, as the typed values read one
    r"\b\d+ ?(?:GB|MB|ms|req/s|rps|%)\b",
    r"\bconfig(?:ured)?\b",
    r"\bcredentials? (?:are|live)\b",
    r"\busername\b",
    r"\baccount\b",
    r"\bversion\b",
    r"\bstored in\b",
    r"\bhosted (?:on|at)\b",
    r"\bregion\b",
    r"\bschema\b",
)
DECLARATIVE = re.compile(
    r"^[^\n:]{2,60}?(?:\s(?:is|are|runs|run|needs|keeps|allows|uses|pays for|has|lives|sits|listens on|"
    r"expires|renews|happens|meets|starts|ends)\s|:\s+\S)[^\n]{1,120}$",
    re.IGNORECASE,
)
_GENERIC_HEADING_WORDS = """
    morning afternoon evening night today log logs notes note daily tasks task todo todos done
    summary decisions decision lessons lesson heartbeat heartbeats inbox misc other next status
    standup meeting meetings ideas questions blockers blocker session sessions work journal update
    updates plan plans review reviews email emails messages chat context recap retro retrospective
    open closed backlog general random scratch deploy deploys deployment debugging debug errors ops
    infra people contacts facts actions weekly week
    """
GENERIC_HEADINGS = frozenset(_GENERIC_HEADING_WORDS.split())
