"""The kind of value a question asks for, read from its wording, and whether a sentence holds one.

`expected_type("How long is the warranty?")` is a duration; `"How heavy is the X200 in
kilograms?"` a quantity of mass. An answer that quotes no instance of the asked type has not
answered the question, however close its sentences are to it (docs/evidence.md, "Answer types").
Pure and rule-based, English wording only: a question in another language has no expected type,
and its answer is judged by the other gates alone.

Each type has a noun the answer names when the value is missing ("the sources found do not
state the weight asked for").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

import msgspec

from service.text.language import LIGHT_VERBS, function_word, language_of
from service.text.stems import stem
from service.text.text_cache import paragraph_cache

__all__ = [
    "AnswerType", "TypeName", "expected_type", "holds_instance", "names_attribute", "number_word",
    "role_word", "unit_word",
]  # fmt: skip

TypeName = Literal[
    "quantity", "duration", "frequency", "date", "time", "person", "place", "version", "yes_no"
]

_NUMBER_WORDS = (
    "zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    "fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    "eighty|ninety|hundred|thousand|million|billion|dozen|half|single|double|a few|several"
)
_NUMBER = rf"(?:\d[\d,.]*|\b(?:{_NUMBER_WORDS})\b)"

# Unit families: a quantity question about weight is answered by a mass, not by any number.
_UNITS: dict[str, str] = {
    "mass": r"kg|kilo(?:gram)?s?|g|grams?|mg|lbs?|pounds?|oz|ounces?|tonnes?|tons?",
    "length": r"mm|cm|m|km|metres?|meters?|millimet(?:re|er)s?|centimet(?:re|er)s?|"
    r"kilomet(?:re|er)s?|inch(?:es)?|in\.|ft|feet|foot|yards?|miles?|\"",
    "volume": r"ml|l|litres?|liters?|millilit(?:re|er)s?|gallons?|cups?|fl\.? ?oz|cl|dl|"
    r"cubic \w+|m3|m³",
    "temperature": r"°\s?[cf]?|degrees?(?: celsius| fahrenheit| c| f)?|celsius|fahrenheit|k\b",
    "power": r"w|kw|watts?|kilowatts?|hp|horsepower|va|mw",
    "voltage": r"v|volts?|kv|mv",
    "current": r"a|amps?|amperes?|ma",
    "pressure": r"bar|psi|kpa|pa|mbar|hpa|atm",
    "money": r"\$|€|£|¥|usd|eur|gbp|dollars?|euros?|pounds?|cents?|kr|chf",
    "data": r"kb|mb|gb|tb|bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?",
    "speed": r"km/h|kmh|mph|rpm|m/s|pages? per minute|ppm|knots?|mbps|gbps|kbps",
    "frequency_unit": r"hz|khz|mhz|ghz|hertz",
    "energy": r"kwh|wh|j|joules?|kj|calories|kcal|cal|mah|btu",
    "area": r"m2|m²|square \w+|sq\.? ?\w+|hectares?|acres?",
    "percent": r"%|percent|per cent",
}
# Units of time from the smallest, each step as (words, abbreviations). A duration counted in
# one ("how many years") is given in it or in a neighbour ("18 months"), not two steps away
# ("within 28 days" is another period).
_TIME_SCALE = (
    (r"seconds?|secs?|milliseconds?", r"s|ms"), (r"minutes?|mins?", ""), (r"hours?", r"hrs?|h"),
    (r"days?|nights?", ""), (r"weeks?|fortnights?", ""), (r"months?", ""), (r"years?", r"yrs?"),
    (r"decades?", ""), (r"centuries|century", ""),
)  # fmt: skip


def _alternation(steps: tuple[tuple[str, str], ...]) -> str:
    return "|".join(unit for step in steps for unit in step if unit)


_TIME_UNITS = _alternation(_TIME_SCALE)
# The attribute named in a quantity question -> the unit families that answer it.
_ATTRIBUTE_FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (r"weigh\w*|heavy|mass", "weight", ("mass",)),
    (r"long|length|tall|height|high|wide|width|deep|depth|far|distance|thick\w*|diameter|"
     r"size|dimensions?|reach|range", "size", ("length", "area")),
    (r"capacity|volume|hold|litres?|liters?", "capacity", ("volume", "mass")),
    (r"temperature|hot|cold|warm|heat", "temperature", ("temperature",)),
    (r"power|wattage|consum\w*", "power", ("power", "energy")),
    (r"voltage", "voltage", ("voltage",)),
    (r"current|amperage", "current", ("current",)),
    (r"pressure", "pressure", ("pressure",)),
    # Sums of money named by their nouns; not a limescale deposit or a toll-free number.
    (r"cost|price|pay|charge|fee|expensive|cheap|(?<!scale )(?<!mineral )deposits?|fares?|"
     r"rents?(?!-free)|refunds?|tolls?(?!-free)|wages?|salar(?:y|ies)", "price", ("money",)),
    (r"storage|memory|disk|file size", "size", ("data",)),
    (r"fast|speed|quick", "speed", ("speed",)),
    (r"battery|charge capacity", "battery capacity", ("energy", "percent")),
)  # fmt: skip
_UNIT_NAMES: dict[str, tuple[str, ...]] = {
    "mass": ("kilograms", "kilogram", "kg", "grams", "pounds", "lbs", "ounces", "tonnes"),
    "length": ("metres", "meters", "centimetres", "centimeters", "millimetres", "millimeters",
               "kilometres", "kilometers", "inches", "feet", "miles", "cm", "mm", "km"),
    "volume": ("litres", "liters", "millilitres", "milliliters", "gallons", "cups", "ml"),
    "temperature": ("degrees", "celsius", "fahrenheit"),
    "power": ("watts", "kilowatts"),
    "voltage": ("volts",),
    "money": ("dollars", "euros", "usd", "eur"),
    "data": ("megabytes", "gigabytes", "terabytes", "mb", "gb", "tb"),
    "speed": ("rpm", "mph", "km/h"),
}  # fmt: skip
# Places that have proper names: "which country" is answered by a name ("the Netherlands faced
# a complete embargo"), whatever preposition stands before it.
_GEOGRAPHY = (
    r"countr(?:y|ies)|cit(?:y|ies)|nations?|continents?|islands?|provinces?|towns?|count(?:y|ies)|"
    r"villages?|rivers?|oceans?|seas?|lakes?|mountains?|territor(?:y|ies)"
)
_DURATION_CUE = re.compile(
    r"\bhow long\b(?!\s+(?:is|are)\s+(?:the\s+)?(?:\w+\s+)?(?:cable|cord|hose|pipe|tube|"
    r"wire|lead|rope|strap|chain|bar|blade|board|line|track|road|trail|route|bridge|river))|"
    r"\b(?:warranty|guarantee) (?:period|term|length)\b|\bwhat is the (?:warranty|guarantee)\b|"
    r"\bhow many (?:seconds|"
    r"minutes|hours|days|weeks|months|years)\b|\bduration\b|\bperiod\b|\blifespan\b|"
    r"\blife ?time\b|\bhow soon\b|\bhow quickly\b|\btime (?:does it|it) takes?\b|"
    r"\bhow much (?:notice|time)\b",
    re.IGNORECASE,
)
_FREQUENCY_CUE = re.compile(
    r"\bhow (?:often|frequently)\b|\bhow many times\b|\bfrequency\b|\binterval\b|"
    r"\bwhat intervals?\b",
    re.IGNORECASE,
)
_TIME_CUE = re.compile(
    r"\bwhat times?\b|\bat what times?\b|\b(?:opening|office|business|service) hours\b|"
    r"\bwhat hours?\b|\bwhen (?:does|do|will) (?:\w+ ){0,4}(?:open|close|start|begin|end|run)\b|"
    r"\bhow (?:late|early)\b|\bwhat(?:'s| is) the (?:latest|earliest)(?: time\b|\s+(?:i|you|we)\b)",
    re.IGNORECASE,
)
_DATE_CUE = re.compile(
    r"\bwhat (?:date|day|year|month)s?\b|\bwhich (?:date|day|year|month)s?\b|\bin what year\b|"
    r"\bsince when\b|\bby when\b|\bwhen (?:was|were|did|will)\b|\bdeadline\b|"
    # "When is 6.0 coming out?", "When is rent due?", "When does the term begin?"
    r"\bwhen (?:is|are|does|do) (?:\w+[ .]){0,6}?(?:due|released?|launch(?:ed|es)?|out|"
    r"planned|expected|scheduled|begins?|starts?|ends?|finish(?:es)?|available|go(?:es)? live)\b",
    re.IGNORECASE,
)
_VERSION_CUE = re.compile(
    r"\b(?:which|what)(?:'s| is)? (?:the )?(?:(?!(?:dates?|times?|days?|years?|months?) )"
    r"[\w-]+ ){0,4}?(?:version|release|firmware|build)\b|"
    r"\bversion (?:number|of)\b|"
    r"\bminimum (?:\w+ )?version\b",
    re.IGNORECASE,
)
_PERSON_CUE = re.compile(
    r"(?:^|[,;:]\s*)\W*(?:who|whom|whose)\b(?!\s+(?:is|are|was|were)\s+(?:the\s+)?\w+\s*\??$)"
    r"(?!\s+(?:were|are)\b)|\b(?:whom|whose)\b|\bwhich (?:of the )?(?:\w+ )?(?:person|people|"
    r"team|department|group|company|manufacturer|vendor|engineer|contact|doctor|dentist|vet|"
    r"nurse|teacher|trainer|instructor|coach|officer|manager|member of staff|staff member)s?\b|"
    r"\b(?:contact person|responsible for)\b|\bwhat(?:'s| is) the name of\b",
    re.IGNORECASE,
)
_PLACE_CUE = re.compile(
    r"^\W*where\b|\bwhere\b|\b(?:which|what) (?:room|building|floor|location|country|city|place|"
    r"address|folder|directory|menu|port|socket|slot|bay|gate|platform|entrance|door)\b|"
    rf"\b(?:which|what) (?:{_GEOGRAPHY})\b|\blocated\b",
    re.IGNORECASE,
)
# A reason is asked, not a value; "why and when was it built" asks for a date as well.
_WHY = re.compile(r"\W*(?:why|how come)\b(?!\W+and\W+(?:when|where|who|how)\b)", re.IGNORECASE)
_WHEN = re.compile(r"^\W*when\b|\bwhen (?:is|are|does|do|will|was|were|did)\b", re.IGNORECASE)
# "When do you need to blind bake pastry?", "when should I repot a houseplant": a habit or an
# advice of a generic subject is answered by an occasion ("necessary when it will be filled
# with an unbaked filling", "defrost it once the ice is 5 mm thick") as well as by a date or a
# time; "when do you think the war ended" and "when do I get my refund" ask of one event.
_WHEN_GENERIC = re.compile(
    r"^\W*when (?:do|does|should|must|can|would|could) (?:you|we|they|i|one|people|someone)\b"
    r"(?! (?:think|reckon|suppose|believe|guess|expect|know|get|receive|hear)\b)",
    re.IGNORECASE,
)
_OCCASION = re.compile(
    r"\b(?:when|whenever|if|once|until|as soon as|every time|each time|at which point)\b",
    re.IGNORECASE,
)
# "Where did the word come from?" asks for an origin (a story, a source, a language), which
# no pattern decides; "where is it made" asks for a place.
_ORIGIN = re.compile(
    r"\bwhere (?:\w+ ){1,8}?(?:come|comes|came|coming) from\b|\bwhere (?:\w+ ){1,8}?"
    r"(?:originate[sd]?|derive[sd]?|stem(?:s|med)?)\b",
    re.IGNORECASE,
)
_QUANTITY_CUE = re.compile(
    r"\bhow (?:many|much|big|large|small|heavy|tall|high|wide|deep|far|long|hot|cold|fast|"
    r"thick|loud|bright|old)\b|\bwhat(?:'s| is| are)? (?:the )?(?:[\w-]+ ){0,2}?(?:weight|"
    r"capacity|size|length|width|height|depth|diameter|voltage|power|wattage|temperature|"
    r"pressure|speed|price|cost|fee|fare|rate|deposit|charge|rent|number|amount|range|distance|"
    r"volume|resolution|dimensions?|current|load|limit)\b|\bwhat (?:does|do|will|would) "
    r"(?:[\w-]+ ){1,6}?cost\b|"
    r"\bin (?:metres|meters|kilograms|kg|grams|litres|liters|degrees|celsius|fahrenheit|watts|"
    r"volts|inches|feet|centimetres|centimeters|millimetres|millimeters|dollars|euros|pounds|"
    r"minutes|hours|seconds|days|gb|mb|mbps|gbps|rpm|mph|km/h|ml|kwh|watts)\b",
    re.IGNORECASE,
)
_YES_NO = re.compile(
    r"^\W*(?:is|are|am|was|were|does|do|did|can|could|should|will|would|has|have|had|may|must|"
    r"shall)\b",
    re.IGNORECASE,
)
_HOW_MANY = re.compile(r"\bhow many\s+(?P<noun>[a-z][a-z-]+)", re.IGNORECASE)

_DATE = re.compile(
    r"\b(?:1[5-9]\d\d|20\d\d)\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|"
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?\s*\d|"
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december)\b|\b(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|weekdays?|weekends?)s?\b|\b(?:spring|summer|autumn|fall|winter)\b|"
    r"\b(?:century|decade)\b|\b(?:today|tomorrow|yesterday)\b|"
    # A year before 1500 only after a word that dates it ("invaded Scotland in 1072", "since
    # 1215"): alone such a number is as often a count or a model ("1200 W", "the 1400 series").
    r"\b(?:in|since|until|till|by|from|after|before|around|circa|c\.)\s+1[0-4]\d\d\b"
    r"(?=\s*(?:[,.;:)]|$)|\s+(?:AD|CE|BC|BCE|and|when)\b)",
    re.IGNORECASE,
)
_YEAR_CUE = re.compile(r"\byears?\b", re.IGNORECASE)
# A year, a decade or a century: "in 1961", "the 1960s", "in the 5th century BC".
_YEAR = re.compile(
    r"\b(?:1\d{3}|20\d\d)s?\b|\b\d{1,4}\s?(?:BC|BCE|AD|CE)\b|\b(?:century|decade)\b",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:a\.?m\.?|p\.?m\.?)(?!\w)|\b(?:noon|midnight|midday)\b|"
    r"\bo'clock\b|\b\d{1,2}\s?h\b|\b(?:morning|evening|night|afternoon)\b",
    re.IGNORECASE,
)
_OCCASIONS = (
    r"second|minute|hour|day|night|morning|afternoon|evening|week|weekend|fortnight|month|"
    r"quarter|term|season|year|spring|summer|autumn|winter|time|use|visit|session|cycle|wash|"
    r"shift|service|charge"
)
_FREQUENCY = re.compile(
    r"\b(?:every|twice|thrice|daily|weekly|monthly|yearly|annually|hourly|nightly|"
    r"fortnightly|quarterly|biannually|regularly|continuously|always|never)\b|"
    # "once a week", not "restarts once it has finished"
    r"\bonce\b(?!\s+(?:it|you|they|he|she|we|i|the|this|that|these|those|your|its|their|"
    r"all|everything|installed|done|finished|complete|completed|set)\b)|"
    r"\b(?:times|per|a) (?:a |per )?(?:second|minute|hour|day|week|month|year|use|cycle)\b|"
    rf"\b(?:after|before) (?:each|every|{_NUMBER})\b|\b\d+\s*(?:x|times)\b|"
    # "each" counts occasions ("each morning", "each use"), not things ("at each stop")
    rf"\beach (?:\d+ )?(?:{_OCCASIONS})s?\b",
    re.IGNORECASE,
)
# A version; not a network address ("a browser at 192.168.8.1").
_VERSION = re.compile(
    r"(?<![\d.])\bv?(?![1-9]\d{1,2}(?:\.\d{1,3}){3}\b)\d+(?:\.\d+){1,3}\b|\bversion\s+\d|"
    r"\bv\d+\b|\brelease\s+\d",
    re.IGNORECASE,
)
# A name: two capitalised words in a row, not at the start of the sentence; or a role or team.
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z'’-]+(?:\s+(?:[A-Z]\.?\s*)?[A-Z][a-z'’-]+)+")
_ROLE = re.compile(
    r"\b(?:team|department|desk|office|group(?!s?\s+of\b)|manager|engineer|technician|"
    r"administrator|admin|owner|supervisor|officer|lead|coordinator|committee|board|"
    r"service (?:centre|center|partner)|dealer|installer|support|staff|operator|company|"
    r"manufacturer|vendor|contractor|electrician|plumber|director|founder|inventor|author|king|"
    r"queen|president|"
    r"[A-Z][a-z]+ (?:Ltd|Inc|GmbH|AG|LLC|Corp)\b)",
    re.IGNORECASE,
)
# People named by what they do ("the photographer positions the subject"); words as often
# things ("pilot" light, media "player", "ruler", "coach") are left out.
_OCCUPATION = re.compile(
    r"\b(?:\w+(?:grapher|ologist|ician)|scientist|researcher|historian|scholar|writer|poet|"
    r"novelist|composer|singer|musician|actor|actress|artist|painter|architect|captain|"
    r"commander|soldier|doctor|surgeon|nurse|teacher|professor|student|disciple|priest|bishop|"
    r"pope|emperor|empress|prince|princess|duke|monk|nun|chief|leader|minister|senator|mayor|"
    r"judge|lawyer|farmer|explorer|journalist|philosopher|economist)(?:s|es)?\b",
    re.IGNORECASE,
)
_CALENDAR = (
    r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|"
    r"April|May|June|July|August|September|October|November|December)"
)
# A capitalised word before a model code ("Corva P2", "Resa M1") names a product, not a person;
# a day or a month ("run on Wednesday evenings") no one, nor a field's label ("Instructor: to
# be confirmed").
_SINGLE_NAME = re.compile(
    rf"(?<=\s)(?!{_CALENDAR}s?\b)[A-Z][a-z]{{2,}}\b(?!\s+[A-Z0-9-]*\d)(?!\s*:)"
)
# A place: a spatial preposition ("under the sink", "behind the cover"), a weak one ("in",
# "at", "on", "from") before a name, a number or a place noun ("in Western Asia", "on the 4th
# floor", "in the top drawer"), a menu path ("Settings > Apps"), or a noun that names a place
# ("room", "folder"). "On Tuesdays" and "to the safety officer" are not places.
_PLACES = (  # nouns that name a place wherever they stand
    r"rooms?|buildings?|floors?|streets?|roads?|city|cities|country|countries|regions?|"
    r"folders?|director(?:y|ies)|menus?|panels?|tabs?|screens?|shel(?:f|ves)|cabinets?|"
    r"drawers?|cupboards?|offices?|kitchens?|corridors?|lab(?:oratory)?s?|basements?|garages?|"
    r"compartments?|warehouses?|reception|provinces?|towns?|villages?|islands?|continent"
)
_PLACE_NOUNS = (  # and those that do after "in", "at", "on", ... ("on the back", "at the end")
    rf"{_PLACES}|walls?|doors?|halls?|desks?|racks?|bays?|trays?|sides?|back|front|top|bottom|"
    r"corners?|ends?|left|right|north|south|east|west|cent(?:re|er)|areas?|sites?|campus|"
    r"stores?|shops?|entrance|states?|mountains?|rivers?|coast|border|park|station|port"
)
_PLACE = re.compile(
    r"(?i:\b(?:under|inside|behind|beside|next to|near|below|above|beneath|underneath|"
    r"opposite|outside|located|stored|mounted|kept)\b)\s+\S|"
    rf"(?i:\b(?:in|at|on|from|into|to)\s+(?:the\s+|a\s+|an\s+)?)(?:(?!{_CALENDAR})[A-Z0-9]|"
    rf"(?i:(?:[\w-]+\s+){{0,2}}(?:{_PLACE_NOUNS})\b))|>|"
    rf"(?i:\b(?:{_PLACES})\b)"
)
# Places the typed check also reads, not the relevance screen (a sentence holding one is not
# thereby about the question): the natural world, buildings and the body after "in", "at", ...
# ("produced in nuclear reactors", "found in wetlands", "stored in the liver"), and a name or
# a place noun after "throughout", "across", "along", "within", "among" or "around"
# ("throughout Europe"; not "within two weeks", "around 5 pm").
_NATURE = (
    r"earth|oceans?|seas?|lakes?|forests?|woods|deserts?|valleys?|jungles?|swamps?|"
    r"marsh(?:es)?|wetlands?|grasslands?|plains|highlands|lowlands|hills?|hemisphere|tropics|"
    r"atmosphere|orbit|universe|galax(?:y|ies)|soil|underground|habitats?|reactors?|"
    r"factor(?:y|ies)|mines?|hospitals?|schools?|universit(?:y|ies)|church(?:es)?|temples?|"
    r"castles?|palaces?|stadiums?|museums?|librar(?:y|ies)|prisons?|airports?|harbou?rs?|"
    r"farms?|gardens?|districts?|count(?:y|ies)|territor(?:y|ies)|nations?|peninsulas?|"
    r"brain|liver|stomach|lungs?|kidneys?|intestines?|bloodstream|cytoplasm|mitochondria"
)
_WIDE_PLACE = re.compile(
    rf"(?i:\b(?:in|at|on|from|into|to)\s+(?:the\s+|a\s+|an\s+)?(?:[\w-]+\s+){{0,2}}"
    rf"(?:{_NATURE})\b)|"
    r"(?i:\b(?:throughout|across|along|within|among|around)\s+(?:the\s+|a\s+|an\s+)?)"
    rf"(?:(?!{_CALENDAR})[A-Z]|(?i:(?:[\w-]+\s+){{0,2}}(?:{_PLACE_NOUNS}|{_NATURE})\b))"
)
_YES_NO_ANSWER = re.compile(
    r"\b(?:yes|no|not|never|cannot|can't|must|can|only|always|is|are|does|do|will|should)\b",
    re.IGNORECASE,
)


class AnswerType(msgspec.Struct, frozen=True, kw_only=True):
    name: TypeName
    noun: str  # what the answer names when the value is missing: "weight", "duration", ...
    # quantity: the unit families that answer it; person: "name"; place: "name" (a geographic
    # place, which a name answers too); date: "time" (a bare "when", which a time answers too),
    # "occasion" (a generic "when", which an occasion clause answers too) or "year" ("in what
    # year": only a year does); time: "date" ("when does the term begin", which a date answers
    # too)
    families: tuple[str, ...] = ()
    counted: str = ""  # "how many sheets" (or "weeks"): the counted noun
    cue: str = ""  # the words that decided the type (trace)
    # date with "occasion" (a generic "when"): the stems of the asked act's words, one of which
    # an occasion clause must follow
    act: tuple[str, ...] = ()


@paragraph_cache("function")
def expected_type(question: str) -> AnswerType | None:
    """The type of value the question asks for; None when its wording names none (a how-to,
    a definition, a question in another language). A question that tells something before it
    asks ("My restaurant has just opened an account. Who will be our account manager?") is
    typed by the sentence that asks, or, when that one alone names no type ("... St. Mary's
    open?"), as a whole."""
    text = " ".join(question.split())
    asked = _asked_sentence(text)
    return (_type_of(asked) if asked != text else None) or _type_of(text)


def _type_of(text: str) -> AnswerType | None:
    if not text.isascii() and language_of(text) != "en":  # "Industriestraße" in English is fine
        return None
    if _WHY.match(text):  # a reason, whatever else it names ("why is interphase not a period")
        return None
    if match := _FREQUENCY_CUE.search(text):
        return AnswerType(name="frequency", noun="frequency", cue=match.group(0))
    if (match := _DURATION_CUE.search(text)) and not _unit_named(text, exclude=("time",)):
        noun = "warranty period" if re.search(r"warrant|guarantee", text, re.I) else "duration"
        units = _HOW_MANY.search(match.group(0))  # "how many weeks": the weeks are the type
        return AnswerType(name="duration", noun=noun, cue=match.group(0),
                          counted=units.group("noun").lower() if units else "")  # fmt: skip
    if match := _VERSION_CUE.search(text):
        return AnswerType(name="version", noun="version", cue=match.group(0))
    if match := _QUANTITY_CUE.search(text):
        return _quantity(text, match.group(0))
    if match := _TIME_CUE.search(text):
        if match.group(0).lower().startswith("when"):  # "when does the term begin": a day too
            return AnswerType(name="time", noun="date or time", families=("date",),
                              cue=match.group(0))  # fmt: skip
        return AnswerType(name="time", noun="time", cue=match.group(0))
    if match := _PERSON_CUE.search(text):
        if re.search(r"\bname of\b", match.group(0), re.IGNORECASE):  # a name, not a role
            return AnswerType(name="person", noun="name", families=("name",), cue=match.group(0))
        return AnswerType(name="person", noun="person or team", cue=match.group(0))
    if match := _DATE_CUE.search(text):
        if _YEAR_CUE.search(match.group(0)):  # "in what year": a weekday or a month is no year
            return AnswerType(name="date", noun="year", families=("year",), cue=match.group(0))
        return AnswerType(name="date", noun="date", cue=match.group(0))
    if (match := _PLACE_CUE.search(text)) and not _ORIGIN.search(text):
        named = re.search(rf"\b(?:{_GEOGRAPHY})\b", match.group(0), re.IGNORECASE)
        return AnswerType(name="place", noun="place", families=("name",) if named else (),
                          cue=match.group(0))  # fmt: skip
    if match := _YES_NO.search(text):
        return AnswerType(name="yes_no", noun="answer", cue=match.group(0).strip())
    if match := _WHEN_GENERIC.match(text):
        act = tuple(dict.fromkeys(
            stem(w) for w in re.findall(r"[a-z]+", text[match.end():].lower())
            if len(w) > 2 and not function_word(w) and w not in LIGHT_VERBS
        ))  # fmt: skip
        return AnswerType(name="date", noun="time or occasion", families=("time", "occasion"),
                          cue=match.group(0), act=act)  # fmt: skip
    if match := _WHEN.search(text):  # any other "when ...": a date or a time answers it
        return AnswerType(name="date", noun="date or time", families=("time",), cue=match.group(0))
    return None


def holds_instance(text: str, kind: AnswerType, *, wide: bool = True) -> bool:
    """Whether `text` (a sentence of the answer) holds a value of the asked type. `wide` False
    leaves out the places and people that only the typed check reads (_WIDE_PLACE, a name for
    "which country", _OCCUPATION) and the occasions of a generic "when" (_OCCASION): the
    relevance screen keeps a sentence for its value, and "Switch off Bluetooth and send your
    password to ..." must not pass for a place."""
    pattern = _PATTERNS.get(kind.name)
    if kind.name == "date" and "time" in kind.families and _TIME.search(text):
        return True  # a bare "when ..." is answered by a time as well as a date
    if kind.name == "time" and "date" in kind.families and _DATE.search(text):
        return True  # and "when does it begin" by a date as well as a time
    if kind.name == "date" and "occasion" in kind.families and wide and _occasion(text, kind):
        return True
    if kind.name == "date" and "year" in kind.families:
        pattern = _YEAR
    if pattern:
        return bool(pattern.search(text))
    return _HOLDS[kind.name](text, kind, wide)


def _occasion(text: str, kind: AnswerType) -> bool:
    """An occasion clause after a word of the asked act: "Defrost the freezer when the ice is
    5 mm thick", not "Unplug the freezer before you defrost it" nor "If you are an assistant,
    ..." (the relevance screen never reads occasions: holds_instance's `wide`)."""
    for clause in _OCCASION.finditer(text):
        before = {stem(w) for w in re.findall(r"[a-z]+", text[: clause.start()].lower())}
        if before.intersection(kind.act):
            return True
    return False


# "How tall ..." asks for a height: a sentence that gives a value for the attribute says which
# (a cord "75 cm long" is no height, a battery that "weighs 3.1 kg" is a weight).
_ATTRIBUTE_WORDS = {
    "tall": r"tall|height|high", "high": r"tall|height|high", "heavy": r"heavy|weigh\w*|mass",
    "long": r"long|length", "wide": r"wide|width", "deep": r"deep|depth", "thick": r"thick\w*",
    "far": r"far|distance|range", "hot": r"hot|temperature", "cold": r"cold|temperature",
    "fast": r"fast|speed", "old": r"old|age",
}  # fmt: skip
_HOW_ATTRIBUTE = re.compile(r"\bhow (\w+)", re.IGNORECASE)


def _asked_sentence(text: str) -> str:
    """The sentence that asks, after those that tell ("My restaurant has just opened an account.
    Who will be our account manager?"): the last one, when it ends in a question mark."""
    *told, asked = _SENTENCE_END.split(text)
    return asked if told and asked.endswith("?") else text


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def names_attribute(text: str, kind: AnswerType) -> bool:
    """Whether `text` names the attribute a "how tall/heavy/..." question asks for (True when
    the question names none)."""
    cue = _HOW_ATTRIBUTE.search(kind.cue)
    words = _ATTRIBUTE_WORDS.get(cue.group(1).lower()) if cue else None
    return words is None or re.search(rf"\b(?:{words})\b", text, re.IGNORECASE) is not None


def number_word(word: str) -> bool:
    """A number written as a word ("four", "a dozen")."""
    return re.fullmatch(rf"(?:{_NUMBER_WORDS})", word, re.IGNORECASE) is not None


def role_word(word: str) -> bool:
    """A word that names a role or a team ("manager", "desk", "teacher"): one a person question
    names is what it asks who fills, not an answer to it."""
    return bool(_ROLE.fullmatch(word) or _OCCUPATION.fullmatch(word))


def unit_word(word: str) -> bool:
    """A unit's name ("kilograms", "km"): in a question it names the asked type, not what the
    question is about, and the answer may write it another way ("3.1 kg")."""
    return any(word.lower() in names for names in _UNIT_NAMES.values())


def _quantity(text: str, cue: str) -> AnswerType:
    counted = _HOW_MANY.search(text)
    if counted:
        noun = counted.group("noun").lower()
        if re.fullmatch(_TIME_UNITS, noun):  # "how many weeks": the weeks are the type
            return AnswerType(name="duration", noun="duration", counted=noun, cue=cue)
        return AnswerType(name="quantity", noun=f"number of {noun}", counted=noun, cue=cue)
    named = _unit_named(text)
    # The attribute named nearest the question word is the asked one: "how much does it cost
    # to send a parcel in a size M locker" asks a price, not a size.
    lowered = cue.lower() + " " + text.lower()
    named_at = [
        (match.start(), noun, fams) for pattern, noun, fams in _ATTRIBUTE_FAMILIES
        if (match := re.search(rf"\b(?:{pattern})\b", lowered))
    ]  # fmt: skip
    if named_at:
        _, noun, fams = min(named_at, key=lambda n: n[0])
        return AnswerType(name="quantity", noun=noun, families=named or fams, cue=cue)
    return AnswerType(name="quantity", noun="value" if named else "amount", families=named,
                      cue=cue)  # fmt: skip


def _unit_named(text: str, exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Unit families the question names ("in kilograms" -> mass)."""
    match = re.search(r"\bin (?:the )?([a-z/]+)\b", text, re.IGNORECASE)
    if not match:
        return ()
    unit = match.group(1).lower()
    return tuple(f for f, names in _UNIT_NAMES.items() if unit in names and f not in exclude)


def _has_quantity(text: str, kind: AnswerType, _wide: bool) -> bool:
    if kind.counted in _PEOPLE:  # "42 plots", "10 m" and "1 March" count no one
        return bool(_PEOPLE_COUNT.search(text))
    if not kind.families:  # a count ("how many jurors") or an amount: any figure
        return bool(re.search(_NUMBER, text, re.IGNORECASE))
    units = "|".join(_UNITS[f] for f in kind.families)
    if "money" in kind.families and _MONEY_FIRST.search(text):  # "£5.40", "EUR 6.50"
        return True
    return bool(re.search(rf"{_NUMBER}\s?(?:-\s?)?(?:{units})(?![a-z])", text, re.IGNORECASE))


# Nouns that count people. A count of them is a figure before one ("35 names", "up to 6
# guests") or a figure that ends its phrase ("Harbour seats 14.", "12 at a time").
_PEOPLE = frozenset(
    re.findall(
        r"\w+",
        "people persons members staff employees workers players students pupils children kids "
        "adults guests visitors attendees participants passengers names applicants volunteers "
        "users customers patients residents households families",
    )
)
_PEOPLE_COUNT = re.compile(
    rf"{_NUMBER}(?:\s+[\w-]+)?\s+(?:{'|'.join(_PEOPLE)})\b|"
    rf"{_NUMBER}(?=\s*(?:[.,;:)]|$)|\s+(?:at|in|on|of|per|and|or|can|may|will|are|is|were|"
    r"was|who|to)\b)",
    re.IGNORECASE,
)
_MONEY_FIRST = re.compile(r"(?:[$€£¥]|\b(?:usd|eur|gbp|chf|kr)\b)\s?\d", re.IGNORECASE)


def _has_duration(text: str, kind: AnswerType, _wide: bool) -> bool:
    units, words = _units_near(kind.counted)
    return bool(
        re.search(rf"{_NUMBER}\s?(?:-\s?|to\s+{_NUMBER}\s?)?(?:{units})\b", text, re.I)
        or re.search(r"\b(?:lifetime|overnight|indefinitely|permanent\w*)\b", text, re.I)
        # "for days", "up to a week", "within several hours"
        or re.search(
            r"\b(?:for|within|in|after|about|up to|over|around)\s+(?:a |an |several |"
            rf"many |a few |some )?(?:{words})\b",
            text,
            re.I,
        )
    )


def _units_near(counted: str) -> tuple[str, str]:
    """The units a duration counted in `counted` may be given in (every unit when it counts
    none), as (all of them, the words alone: "for S" is a size, not seconds)."""
    at = next(
        (i for i, s in enumerate(_TIME_SCALE) if re.fullmatch(_alternation((s,)), counted)), None
    )
    steps = _TIME_SCALE if at is None else _TIME_SCALE[max(at - 1, 0) : at + 2]
    return _alternation(steps), "|".join(word for word, _ in steps)


def _names_someone(text: str) -> bool:
    """A name of someone: "Chloe Brandt", "Marta"; not a street's or a holiday's ("Mill Street",
    "New Year")."""
    text = _NO_ONE.sub(" ", text)
    return bool(_NAME.search(text) or _SINGLE_NAME.search(text))


# Capitalised names of places and days, not people.
_NO_ONE = re.compile(
    r"\b(?:[A-Z][a-z'’-]+\s+)+(?:Street|Road|Avenue|Lane|Way|Square|Park|Station|Year|Day|Eve|"
    r"Holidays?|Centre|Center)\b"
)


def _has_place(text: str, kind: AnswerType, wide: bool) -> bool:
    """A place; "which country" is answered by a name as well ("the Netherlands faced ...")."""
    if _PLACE.search(text):
        return True
    return wide and (bool(_WIDE_PLACE.search(text))
                     or ("name" in kind.families and _names_someone(text)))  # fmt: skip


def _has_version(text: str, _kind: AnswerType, _wide: bool) -> bool:
    """A version number; "stores 5.1 kWh" is an amount (a number with a unit), no version."""
    return any(
        not _A_UNIT.match(text, m.end()) or m.group(0).lower().startswith(("v", "version"))
        for m in _VERSION.finditer(text)
    )


_A_UNIT = re.compile(rf"\s?(?:{'|'.join(_UNITS.values())}|{_TIME_UNITS})(?![a-z])", re.IGNORECASE)


def _has_person(text: str, kind: AnswerType, wide: bool) -> bool:
    """A name, or a role or team; "what's the name of ..." asks for a name: "our practice
    manager deals with complaints" gives none."""
    named = _names_someone(text)
    if "name" in kind.families:
        return named
    return named or bool(_ROLE.search(text) or (wide and _OCCUPATION.search(text)))


# Types one pattern decides; the others need the question's unit family or several patterns.
_PATTERNS = {
    "frequency": _FREQUENCY, "date": _DATE, "time": _TIME, "yes_no": _YES_NO_ANSWER,
}  # fmt: skip
_HOLDS: dict[str, Callable[[str, AnswerType, bool], bool]] = {
    "quantity": _has_quantity, "duration": _has_duration, "place": _has_place,
    "person": _has_person, "version": _has_version,
}  # fmt: skip
