import Analytics
import Foundation
import TourModel

/// Records the account commands' analytics events (`signup`, `login`, `voucher_redeemed`) in the
/// analytics outbox, for the service the command spoke to: their ids are that service's (the live
/// service answers 500 to an unknown one). They are sent when the command ends
/// (`AnalyticsAfterCommand`).
package struct AccountEvents {
    /// The events the account commands record (all in the service's list of names).
    package enum Name: String {
        case signup, login
        case voucherRedeemed = "voucher_redeemed"
    }

    package let recorder: AnalyticsRecorder
    package let origin: EventOrigin

    package init(settings: Settings) {
        recorder = AnalyticsRecorder(settings: settings)
        origin = AnalyticsStorage.serviceKey(settings).map(EventOrigin.service) ?? .local
    }

    /// A lost event must not fail the login or redemption it describes: say so and go on.
    package func record(_ name: Name, userID: String?, tourID: String? = nil) {
        recorder.recordOrWarn(
            AnalyticsEvent(name: name.rawValue, userID: userID, tourID: tourID, timestamp: Date()),
            origin: origin)
    }
}
