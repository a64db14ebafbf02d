// Package dates reads the dates agentmem is given and finds the time
// expressions in text. It is one small, strict grammar shared by ingest and
// recall (Parse: session_date, timestamp, after, before, --now), time-aware
// recall (Find) and the entity extractor (FindWith, Loose). It uses the
// standard library only
// and does no work at start-up beyond constant tables.
//
// # Parse
//
// Parse reads one field value, and only these forms (any case, surrounding
// whitespace ignored, at most MaxLen bytes):
//
//	2023-05-07                          ISO 8601 date (dateOnly)
//	2023-05-07T14:00                    date-time, T or space, in loc
//	2023-05-07 14:00:05.123             seconds, fraction of 1 to 9 digits
//	2023-05-07T14:00:00Z                RFC 3339: Z or ±hh:mm
//	2023-05-07T14:00:00+02:00
//	1:56 pm on 8 May, 2023              LoCoMo's session dates
//	2023/05/30 (Tue) 23:40              LongMemEval's; the weekday must agree
//	8 May 2023, 8 May, 2023, 8th of May 2023, May 8, 2023, May 8th 2023
//	Sunday, 7 May 2023                  a weekday before the date must agree
//	at 2 pm on 8 May 2023, 14:00 on 8 May 2023, 8 May 2023 at 2:30 pm,
//	May 8, 2023, 14:00
//
// Months are full names or three-letter abbreviations (and "Sept"), with an
// optional dot ("Aug."); weekdays are full names or abbreviations ("Tue",
// "Thurs"). A time is h:mm or hh:mm[:ss] on a 24-hour clock, or h[:mm[:ss]]
// with am, pm, a.m. or p.m. ("12 am" is midnight). Month and day of the
// ISO and slash forms take two digits, years four.
//
// Everything else is an error, and an error never becomes another date:
// "31 February, 2023" and "2023-02-29" (February 2023 has 28 days),
// "2023-13-01" (there is no month 13), a year or a month alone ("2023",
// "May 2023", "2023-05": give a day), a day without a year ("8 May"), years
// outside MinYear..MaxYear (they do not fit in int64 nanoseconds, the range
// of bleve's date fields), relative dates ("yesterday"), an empty or too
// long value, and anything after the date. The message reads after a field
// name, and lists the accepted forms when the form is unknown:
//
//	cannot read "31 February, 2023" as a date: February 2023 has 28 days
//
// # Find
//
// Find returns the time expressions in a text, each as a Mention: its byte
// span, the period it names [From, To) from midnight to midnight in the
// reference time's location, its Grain, and the calendar fields written in
// it. Label gives the annotation ("2023-05-07", "2023-05", "2023",
// "2023-05-01..2023-05-07"). Weeks are ISO weeks, Monday to Sunday; a
// weekend is its Saturday and Sunday. Spans leave out a preposition that
// only announces the expression ("on" Tuesday, "in" May, "since" 2019) and
// keep one that changes its meaning ("in two weeks"). Examples with the
// reference Wednesday 10 May 2023:
//
//	2023-05-08, 2023/05/08, 2023-5-8     2023-05-08 (ISO with a time too: 2023-05-08T14:00)
//	on 5/18, 18/5/2023, 5/18/23          2023-05-18 (a month not in doubt; see below)
//	2023-05                              2023-05
//	8 May 2023, May 8th, 2023, 8th of May, 2023, Monday, May 8, 2023, May 8,2023
//	May 2023, December, 2022             2023-05, 2022-12
//	in 2022, since 2019, until 2030, mid-2021     a year
//	summer 2022, the summer of 2022      2022-06-01..2022-08-31
//	today, tonight, this morning/afternoon/evening, earlier today   2023-05-10
//	yesterday (morning), last night      2023-05-09
//	the day before yesterday             2023-05-08
//	the other day                        a few days back: 05-03..08 (not "every other day")
//	tomorrow (night), the day after tomorrow
//	last / this / next week              2023-05-01..07 / 05-08..14 / 05-15..21
//	last / this / next weekend           05-06..07 / 05-13..14 / 05-20..21
//	over the weekend, the past weekend   the latest weekend begun: 05-06..07
//	at the weekend                       the same, or this week's when its sentence looks ahead: 05-13..14
//	on the weekend                       none: mostly every weekend ("I work on the weekend"); but
//	                                     see Options.Recent
//	the week / weekend after next        05-22..28 / 05-27..28
//	the week / weekend before last       04-24..30 / 04-29..30
//	the month / year before last         2023-03 / 2021 (after next: 2023-07 / 2025)
//	the night before last                2023-05-08
//	last / this / next month, year       2023-04, 2023-05, 2023-06; 2022, 2023, 2024
//	earlier this week / month / year     from the period's start to ref's day included
//	later this week / month / year       from ref's day to the period's end
//	last Monday, last Wednesday          the latest one before ref's day: 05-08, 05-03
//	next Monday, next Wednesday          the first one after ref's day: 05-15, 05-17,
//	next Thursday, next Friday           but not tomorrow or the day after in ref's week: 05-18, 05-19
//	this Friday, this Monday             the one in ref's week: 05-12, 05-08 (05-15 when
//	                                     its sentence looks ahead: "I'll see him this Monday")
//	Friday next week, Thursday last week that day of that week: 05-19, 05-04
//	Wednesday the 17th                   the nearest 17th that is a Wednesday: 05-17
//	over Christmas, by Easter            a holiday after a word of time, or last/this/next
//	                                     (see holiday.go): as a day without a year, 2022-12-25, 2023-04-09
//	                                     ("Friday the 13th" alone is the film's, not read)
//	on Tuesday, Tuesday (morning)        the latest one before ref's day: 05-09
//	by EOD Friday, OOO Friday            the next one: a status in capitals before a weekday (EOD,
//	                                     COB, OOO, PTO, WFH, ETA) is no name, as "Black Friday" is,
//	                                     and says a deadline or a plan unless a word says the past
//	two days ago, a day ago              2023-05-08, 2023-05-09 ("two days back" the same; not a
//	                                     delay: "pushed it two weeks back", "we're a day back")
//	two weeks ago, a fortnight ago       the ISO week of ref's day minus 14: 04-24..30
//	two months ago, a year ago           2023-03, 2022
//	in 3 days, in two weeks              2023-05-13; the ISO week of ref + 14 days
//	in a week                            the ISO week of ref + 7 days, in a sentence that looks
//	                                     ahead ("I'll be back in a week"; not "built in a day")
//	3 days / two weeks from now          the same; also months and years ("a month from now": 2023-06);
//	                                     "from today" as "from now"
//	last summer / this / next            the latest season ended before ref's month /
//	                                     the one starting 5 months before to 6 after /
//	                                     the first starting after it
//	last May, next May, this May         2022-05 (strictly before ref's month), 2024-05, 2023-05
//	Q3 2022, Q4 of 2021, Q4'21           calendar quarters: 2022-07-01..09-30, 2021-10-01..12-31;
//	Q1-Q2 2023, Q3/Q4 2022               2023-01-01..06-30, 2022-07-01..12-31 ("Q3" without a
//	                                     year is none: an Audi Q3, a quiz's Q3; but see
//	                                     Options.Recent)
//	last / this / next quarter           2023-01-01..03-31 / 04-01..06-30 / 07-01..09-30
//	early / mid / late May, mid-2021     a half of the period: 05-01..15 / 05-08..24 / 05-16..31;
//	the start / middle / end of May      a year's by months (2021-04-01..09-30); any week, month,
//	                                     quarter, season or year ("Late last week": 05-04..07;
//	                                     before a relative period the word must open its phrase:
//	                                     "I worked late this week" is all of this week)
//	the first / last week of May         05-01..07 / 05-25..31 (second, third, fourth: 8..14, ...)
//	the end of the month, end of week    a part of the week, month, quarter or year near ref: told
//	                                     in the past the latest begun, ahead or by a deadline this
//	                                     one or the next, in the present this one, else the latest
//	                                     begun (unit.go): "due by the end of the month" 05-16..31,
//	                                     "the end of the week was fun" 05-04..07; none in a habit
//	                                     or before a noun ("the end of the month report")
//	the first / second half of 2022      2022-01-01..06-30 / 07-01..12-31; of any period above
//	the week of May 22, Thanksgiving     the ISO week that holds a date or a holiday (weekof.go):
//	week, the week of Christmas          05-22..28, 2022-11-21..27, 2022-12-19..25
//	the week before / after 3 March      the seven days either side of it: 02-24..03-02 / 03-04..10
//	3 to 7 May, 2-6 May, May 3-7, 2023   2023-05-03..2023-05-07: a range, one mention (range.go);
//	from 30 April to 3 May               an end takes the month or year the other says; without
//	between 3 and 7 May                  one, an end's year is a day's (below): the last end's
//	                                     where a word tells the tense, else the first end's
//	from June to August, June-Aug 2023   2023-06-01..2023-08-31: months need from, between,
//	                                     a dash or a year ("I moved it March to May" is none)
//	from 2019 to 2021                    2019-01-01..2021-12-31: years need from or between
//	from Monday to Wednesday             none: mostly a schedule or a habit ("the store was open
//	                                     from Monday to Saturday"); but see Options.Recent
//	on the 8th, since the 2nd            2023-05-08, 2023-05-02: the latest such day up to ref's
//	on February 1st, then on the 5th     2023-02-05: the month named before it in its sentence
//
// Counts are digits or words (one to twenty, thirty, a, an); "a couple of"
// is 2; "a few" is the span of 2 to 4 units ("a few days ago" is
// 2023-05-06..2023-05-08) and "several" 3 to 7. Seasons are the northern
// meteorological ones: spring from March, summer from June, autumn or fall
// from September, winter from December into the next year.
//
// With Options.About (recall's query), a count of units from ref is read
// as about that long: "two weeks ago" also covers the days within half a
// week (3 days) of the day exactly two weeks before ref, a month 15 days,
// a year 182; days are meant exactly. Said on Wednesday 1 February 2023,
// "two weeks ago" is 2023-01-15..2023-01-22 (the ISO week 01-16..22 and
// Sunday 15 January, 17 days back); "two months ago" said on 11 March is
// 2022-12-27..2023-01-31. A recalled turn is annotated with the
// calendar's period alone.
//
// A day without a year after a weekday that falls on it only in the year
// before or after, the nearer to ref, is that year's ("Monday 4 January"
// said on 26 December 2026 is 4 January 2027), unless that year is ahead
// and its sentence is in the past ("we went skiing on Monday 4
// January").
//
// A date or month without a year ("May 8", "8th of May", "in May") takes
// ref's year when its month is not after ref's month, else the year before
// (so in May 2023, "in June" is June 2022), and 29 February the latest leap
// year, unless its sentence names the year ("last year we flew there on
// 2 February": 2 February 2022; "this year", "next year", "in 2019": "in
// 2019 I was in Paris on 3 May", not "since 2019"; "every year" or
// "each year" next to the date a habit's, which has none: no date; so is
// "I was born in March", the speaker's birth; not "in the last year", the
// past twelve months, "the next year" of a story, "since last year", nor
// "last year" in a sentence that looks ahead: "last year's tax return is
// due on 31 January"; and not past a comma that opens another clause:
// "last year was tough, but in March I got a new job"), or speaks of the
// future as for a weekday below ("we will travel in June", "the trip is
// in June": June 2023; "we'll meet on May 3": 3 May 2024); it is not
// Relative, and Year is 0.
//
// A bare weekday is taken as the latest such day strictly before ref's
// day, because memories are mostly told in the past tense ("on Tuesday we
// went..."), unless its sentence looks ahead (then it is the next such
// day strictly after ref's): the nearest tense word within six words
// (before it counted from the first word of a part or a week: "the" of
// "the second half of December", "the week of May 22"; after it from the
// date) says the future. A past one (was, were, went, did, had) keeps it
// behind, as "since" before it does ("I'm feeling better since Monday"),
// and after "from" the progressive does not count ("I'm uploading the
// pictures from Saturday"). A sentence looks ahead with:
//   - will, shall, 'll, going, gonna, plan, or a schedule's word (starts,
//     begins, ends, arrives, launches, upcoming: "the job starts in
//     September");
//   - what is to be done, before a date a preposition of time sets (on,
//     by, before, after, until, till, in, for, at; "the week of", "the
//     week before" and "the week after" too, but not after "about" or
//     "of"; and "after" or a timetable's verb right before it, below:
//     "the release goes out Tuesday", or for a bare weekday right after
//     the verb of a proposal: "can we sync Tuesday?", "let's meet
//     Thursday", not "can we talk about the outage Tuesday?"; unless the
//     date is a possessive's, its event's day: "after Monday's deploy",
//     "we deploy Friday's build")
//     (should, need to, let's: "I should call her on Monday"; not "should
//     have", "I need to tell you about Friday", nor "you should receive it
//     soon" after "I applied on 25 January");
//   - "is on Friday" ("'s on": "the party's on Dec 19th"), "is in March",
//     "is due on 3 March", "is due by 31 January", "is due 1 December",
//     "is due in late March", "is Friday" ("the deadline is Friday"; not "it is Friday", nor
//     "today is Friday", today's name and no other day); a weekday
//     followed by "is" ("Friday is the big day"; not "Friday is when I
//     lost my keys", "Monday is the day I broke my leg");
//   - an event one has, just before such a date ("I have a concert on 3
//     June", "I've got a dentist appointment on Friday", "there's a team
//     dinner on Friday"; not "I have been", "didn't have", "might have",
//     "did you have a good time on Saturday?", "there's a photo of us on
//     Friday");
//   - scheduled, planned or slated for the date ("the postmortem is
//     scheduled for Wednesday", "planned for early February"; not "I
//     planned it on Monday");
//   - "see you" opening the sentence, after will, or after to and a word
//     that looks forward ("see you on Friday!", "see you Monday!", "can't
//     wait to see you on the 3rd"; not "it was great to see you on
//     Friday");
//   - what one asks for or expects ("I won't be in on Monday", "I might
//     go on Saturday", "remind me to call her on Monday", "I'd like to
//     book a table for Saturday", "are you free on Tuesday?"; not "we won
//     on Monday", "might have", "I was free", "I hope you enjoyed the
//     party on Saturday", "I read a good book on Friday", nor across a
//     wh-word: "remind me what I ate on Monday");
//   - "can we" or "can I" opening the sentence;
//   - the present progressive of a plan ("I'm flying there on Friday",
//     "she is leaving in June", "what am I doing on Friday?", "the
//     plumber's coming on Monday"; not after it, that or this: "it is
//     amazing in June"; nor a possessive: "we went to Tom's wedding on
//     Saturday");
//   - a journey in the simple present, as a timetable says it ("we fly
//     to Tokyo on 14 January", "my flight leaves on Friday", "we arrive
//     on the 3rd", "we're off to France on the 1st"; not "did you fly",
//     "why didn't you come", "the autumn leaves in October", "my tax
//     returns on Monday"), or a schedule's ("exams start on 4 January",
//     "the shop opens on Sunday": a plural subject's verb without -s; not
//     after a word of frequency: "we always go to the beach in August",
//     "the shops usually close on Sunday" are habits), or a team's ("we
//     ship on Friday", "the release goes out after Thanksgiving", "my
//     order ships on Monday", "we migrate the database on Sunday": ship,
//     launch, release, deploy, migrate, freeze, resume, whose -s forms
//     are plural nouns as often, so only after what a team ships: "the
//     release ships", not "new releases on Friday"); not with a word of
//     a habit anywhere in its sentence ("normally we ship on Tuesday",
//     "every week", "most weeks", "as usual");
//   - a timetable told after its date, its subject right after it
//     ("After Thanksgiving we ship the app", "on 3 June we fly to Rome";
//     not "after Christmas, then we ship", nor after a weekday, where the
//     present tells stories and habits as often: "On Friday I come home
//     and my laptop is gone");
//   - "I'm back" or "she's back" right before the date ("I'm back
//     Monday", "she's back on the 5th"; not "the bug is back on Tuesday");
//   - "I'm off", "we're away", "I'm out (of office)" or "I'm on holiday" before the date, or
//     after it where it ends its clause ("Christmas week I'm off", "Friday
//     I'm off work"; not "Good call on Monday, I'm off for the day");
//   - "next month" or "tomorrow" before it ("the wedding is next month,
//     on 12 August").
//
// "This Tuesday" is the one in ref's week (Monday to Sunday), or the
// coming one when its sentence looks ahead ("I'll see him this Monday");
// "next Tuesday" is the coming one, unless that is tomorrow or the day
// after in ref's week: "next Thursday" said on a Wednesday is the
// Thursday of next week, 8 days on. A weekday followed by "the" and an
// ordinal that does not end its phrase is a bare weekday ("on Saturday
// the 2nd team won").
//
// Find is deliberately conservative: "May", "March" and month
// abbreviations count only with a capital, and a month or year alone only
// after a word that announces it (in, of, since, during, until, till, from,
// through, before, after, early, mid, late, and for months by, around), or
// a year after "and" or "or" after such a year ("in 2024 and 2025"), so
// "you may go", "1500 points" and "in 2000 people" are not dates; a year
// must end its phrase, as before a clause word or a question word ("in
// 2022 what changed?") and not before a noun it counts. A day
// without its month ("the 15th") needs its ordinal, "on", "by" or one of
// those cue words before it, and the end of its phrase after it: "on the
// 3rd floor", "during the 18th century" and "from the 12th to the 15th
// centuries" are not dates; it looks ahead as a weekday does ("my exam is
// going to be on the 5th": 2023-06-05). A weekday
// that names no particular day is skipped: "every Monday", "the Sunday
// paper", "Black Friday", "Monday:", "Monday to Saturday", "Tuesday or
// Thursday". Impossible dates ("31 February 2023") are skipped, never moved.
// The parts of a date are on one line ("in May.\n4. Roses" is no May 4);
// Markdown's "**", "_" and "|" bound a date as spaces do ("**May 2023**").
// A day written with slashes is read where its month is not in doubt,
// one of its first two numbers being above 12, or joined to such a day
// (slash.go): month first ("2/15", "3/31/23") or day first ("15/2",
// "19/02/2023"); with a year of four digits anywhere, else after a word
// that announces a day (due, dated, starting, effective, ETA, "as of",
// "the week of", "no later than", "moved to", "scheduled for",
// "deadline:", a weekday, or a colon after it: "Standup 11/17:") or one
// that may announce an amount too (on, since, until, till, before, after,
// by, from, between, through, a verb's past form: "merged 11/13"), and
// then before no noun it counts ("on 1/24 scale", "by 1/16 inch"); never
// fractions or scores ("5/16 or 7/16", "from 8/20 to 12/20", "reduce it
// by 1/16", "24/7"); two such days joined make a range ("from 2/15 to
// 2/20", "2/15-2/20").
//
// A deadline's or a plan's word right before a date (due, ETA, effective,
// starting, OOO, PTO, "no later than", "scheduled for", "deadline:")
// sets it ahead where no word of its sentence tells the tense and none
// of its line near it tells of a thing done (a verb's past form, done,
// overdue, "[x]": "Shipped the feature due Sept 30", "Status: done. Due
// Oct 30."), unless it passed within 45 days ("Deadline: May 8", said on
// 9 May, is the day before; "Deadline: Dec 30", said on 5 January, the
// December before), or for a month within two ("Due late October", said
// in December); a day something is moved to ("moved to", "pushed to",
// "postponed to") is ahead whatever the tense of the moving, on the same
// terms ("The concert got rescheduled to Nov 2 and it was amazing" is
// behind).
// Not recognised: numeric dates whose both numbers could be the month
// ("05/08/2023", "on 2/8": 8 February or 2 August; FindWith's Loose option
// reports those with a year unresolved), dates with dots or dashes and
// the day or month first ("15.02.2023"), times
// of day, hours or minutes ago, "in N months" and "in N years" (mostly "I
// haven't seen her in two years"), "in the past week" and "recently"
// (but see Options.Recent, for a question: "the past week", "the last
// three days", "since Monday" are spans back to ref's day).
//
// # Spans back to now (Options.Recent)
//
// A question asks of spans back to now that a memory's words seldom mean
// exactly ("I've been busy in the past week" dates nothing well), so they
// are read only with Options.Recent, for recall's query: "the last N
// units" and "the past N units", N a count of up to 100 (a number, a
// word, "a few", "a couple of", "several", or none for one unit: "the
// past week"), units days, weeks, months or years, are the days from N
// units before ref's day to ref's day, included ("the last three days",
// said on Wednesday 10 May 2023, is 05-07..05-10; "the past month" is
// 04-10..05-10); "the last" without a count needs a week, month or year
// ("the last day" is mostly of something), and none is a span when "of",
// "in", "before" or "after" follows ("the last week of May", "the last
// three weeks in October"). Hours count as the days they reach back into
// from ref's time ("the last 48 hours" at 16:00 is the day before
// yesterday to today; "the past hour" is today). A date after
// "since" ("since Monday", "since the 3rd", "since last March",
// "since Thanksgiving", "since the end of October") reaches to ref's day,
// "since" included in the mention, unless it begins after ref's day.
// "Previous" is read as "last" ("the previous week", "the previous
// Friday"; "the previous day" is yesterday): in a question it counts back
// from ref, in a memory mostly from the story's own time ("the previous
// week I had been in Paris"), which is not known.
//
// A question also reads what a memory's words mostly use otherwise:
//   - "on the weekend" where a word says the tense: "What did we do on the
//     weekend?" is the latest weekend begun, "What are you doing on the
//     weekend?" this week's;
//   - a range of weekdays after "from" or "between", not in the present
//     tense ("Is the shop open from Monday to Saturday?" asks of a
//     schedule): "What did we do from Monday to Wednesday?", said on
//     Wednesday 10 May 2023, is 05-01..03, the latest such days ended
//     before ref's day; "What will we do from Monday to Wednesday?" the
//     next begun after it;
//   - "Q1" to "Q4" without a year, after a word that announces a date:
//     "What did we ship in Q3?" is the latest Q3 begun, "What will we ship
//     in Q1?" the next not yet ended.
//
// # Cost
//
// Both functions read the text once and look a bounded number of tokens
// ahead, so they run in time linear in its length (FuzzFind checks 64 KiB
// of any repeated input against a generous budget). Parse does not
// allocate when it succeeds; Find does not allocate for a text of up to 128
// tokens without expressions, and allocates its result otherwise.
package dates
