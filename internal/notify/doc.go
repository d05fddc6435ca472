// Package notify sends the rollout runner's step events (rollout --watch)
// to the webhooks of config.yaml's notifications (fleet.Notification): a
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
package notify
