"""A small built-in thesaurus of work vocabulary for the offline embedder.

Words in one group share a concept feature, so "cancelled" lands near "shut down" and "deadline"
near "due". General-purpose on purpose: written from everyday engineering and team language, not
from any one workspace. Changing it changes the offline embedder's id (see OfflineEmbedder.version).
"""

from __future__ import annotations

_GROUPS = """
cancel cancelled canceled cancellation kill killed scrap scrapped drop dropped abandon abandoned stop stopped shut shutdown terminate terminated decommission no-go nogo
start started begin began kickoff kick launch launched onboard joined join joins hire hired
release released ship shipped shipping launch rollout roll deploy deployed deployment publish go-live golive cutover
deadline due date by until expire expires expiry expiration cutoff
delay delayed postpone postponed slip slipped move moved moves reschedule rescheduled push pushed late
decide decided decision agree agreed choose chose chosen pick picked settle settled call
reverse reversed revert reverted undo overturn overturned supersede superseded replace replaced switch switched change changed
cost costs price pricing spend spent money budget dollars usd expensive cheap bill billing invoice invoices
fail failed failure failing error errors broken break crash crashed crashes bug bugs issue issues problem incident outage
fix fixed fixes patch patched repair resolve resolved workaround
test tests testing qa regression verify verified check checked validate validation smoke
review reviews reviewed approve approved approval sign-off signoff accept accepted lgtm
reject rejected rejection refuse refused deny denied decline declined block blocked blocker blocking
person people who contact contacts owner lead manager engineer contractor colleague teammate
meeting meet call sync standup retro demo discussion talk talked
database db sql sqlite postgres postgresql mysql rds schema table tables
queue queues job jobs worker workers task tasks background
server servers host hostname cluster clusters node nodes vm vms machine instance instances infra infrastructure
certificate cert certs tls ssl https
secret secrets credential credentials password passwords vault key keys token tokens
slow slowness latency fast speed performance throughput timing p95 p50 p99
lock locked locking contention concurrent concurrency
write wrote written document documented doc docs runbook memo wiki notes note writeup
plan plans planned roadmap schedule scheduled timeline milestone
remember remind reminder recall memorize
lesson lessons learned learn takeaway mistake mistakes retrospective
design designer designs mockup mockups screens screen figma illustration illustrations ui ux
mobile app ios android iphone ipad phone
email emails mail inbox message messages slack dm ping
timezone zone tz utc offset dst bst gmt
weekday monday tuesday wednesday thursday friday saturday sunday weekend
customer customers client clients user users
store stored keep kept retain retention bucket archive archived storage
delete deleted remove removed purge purged wipe
port ports endpoint url address vhost
reason reasons why cause caused causes because root explanation motive
difference differences diff diffs mismatch mismatches mismatched discrepancy discrepancies deviation
cent cents penny pennies rounding round rounded fraction
trial rehearsal pilot dry-run dryrun simulation shadow
project projects experiment initiative effort prototype
enable enabled activate turn flip ramp unlock
rollback roll-back revert fallback restore switch-back
stable stability reliable reliability crash-free uptime healthy
everyone everybody all-users 100%
contractor freelancer consultant temp external
pricier costlier cheaper expensive
"""


def _index(groups: str) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for line in groups.strip().splitlines():
        words = line.split()
        concept = words[0]
        for word in words:
            found.setdefault(word, [])
            if concept not in found[word]:
                found[word].append(concept)
    return {word: tuple(concepts) for word, concepts in found.items()}


CONCEPTS = _index(_GROUPS)


def concepts_of(word: str, root: str) -> tuple[str, ...]:
    """The concepts a word (or its stem) belongs to; most words belong to none."""
    return CONCEPTS.get(word) or CONCEPTS.get(root) or ()
