import HeraldProtocol
import HeraldStoreProtocol

/// The JSON a push carries to our own code on the device (Web Push service worker, the app's webhook backend): the
/// P2 fields, the badge, and what kind it is. The same fields, under the provider's own envelope, in APNs and FCM.
///
/// A push with an opaque reference (`--push-preview none`) carries `ref` and none of the ids: no conversation,
/// message, notification or sender id and no link, so a provider cannot tell who wrote, where, or which pushes of
/// different users belong to one conversation. The app resolves `ref` once awake (`push.resolve`, PROTOCOL.md).
enum PushPayload {
    static func fields(of delivery: PushDeliveryRecord) -> [JSONField] {
        var fields = [JSONField("type", .string(delivery.kind.rawValue))]
        if let reference = delivery.reference {
            fields.append(JSONField("ref", .string(reference)))
        } else {
            if let conversation = delivery.conversation { fields.append(JSONField("conversation", .string(conversation))) }
            if let message = delivery.message { fields.append(JSONField("message", .string(message))) }
            if let notification = delivery.notification { fields.append(JSONField("notification", .string(notification))) }
            if let sender = delivery.sender { fields.append(JSONField("sender", .string(sender))) }
        }
        if delivery.kind != .withdraw {
            fields.append(JSONField("title", .string(delivery.title)))
            fields.append(JSONField("body", .string(delivery.body)))
        }
        if delivery.reference == nil, let url = delivery.url { fields.append(JSONField("url", .string(url))) }
        fields.append(JSONField("badge", .number(delivery.badge)))
        fields.append(JSONField("sentAt", .int(delivery.createdAt)))
        // N2, N3: the app shows a mention as one, and a quiet push without sound or banner (the flag is what a service
        // worker or a webhook backend has; APNs and FCM get their own words for it too).
        if delivery.mentioned { fields.append(JSONField("mentioned", true)) }
        if delivery.quiet { fields.append(JSONField("quiet", true)) }
        return fields
    }

    /// The id a provider collapses or replaces by: the opaque reference, else the message's or the notification's (a
    /// withdrawal replaces its alert).
    static func collapseID(of delivery: PushDeliveryRecord) -> String? {
        delivery.reference ?? delivery.message ?? delivery.notification
    }

    /// Seconds the provider may keep trying (TTL, expiration), at least 0.
    static func timeToLiveSeconds(of delivery: PushDeliveryRecord, now: Int64) -> Int64 {
        max(0, (delivery.expiresAt - now) / 1_000)
    }
}
