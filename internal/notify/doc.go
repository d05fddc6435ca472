// Package notify sends a rollout's step events (rollout --watch, and a
// run that exits: --once, --all, one patch; not --dry-run) to the webhooks of config.yaml's notifications (fleet.Notification): a
// generic webhook gets each event as JSON ([Message]), a Slack-compatible
// incoming webhook a line of text. The events are a step started (pushed),
// healthy, failed, reverted; the next step at a manual gate (gated); held
// by a freeze or a stopWhen condition (frozen); and the patch folded into
// values.yaml (folded: from the rollout's end, rollout.PatchResult).
//
// Nothing here may hold a rollout up: [Notifier.Event] and [Notifier.Ended]
// only queue (each notification has its own bounded queue and sender, so a
// dead receiver delays no other), a full queue drops the message, and a
// send that fails is tried again a few times with a growing pause, then
// given up. Each outcome is counted (strata_notifications_sent_total,
// _failed_total, _dropped_total, by notification) and a failure logged.
//
// A run that exits ends with [Notifier.Flush]: what is queued is sent,
// each message tried once more at most and without a pause, within
// [DefaultFlush]. Such a run sends only what it changed or judged
// ([Options.Changes]): a scheduled rollout --once would otherwise say the
// gate or the hold it waits at every few minutes. A failure of an earlier
// run said again (rollout.Event.Recorded) is never sent twice.
package notify
