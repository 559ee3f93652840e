import Foundation
import TourModel
import Walk

/// Records the account commands' analytics events (`signup`, `login`, `voucher_redeemed`) in the
/// journal the analytics outbox sends from. Only ids that came from the service go in: the live
/// service answers 500 to an unknown one.
struct AccountEvents {
    /// The events the account commands record (all in the service's list of names).
    enum Name: String {
        case signup, login
        case voucherRedeemed = "voucher_redeemed"
    }

    let journal: EventJournal

    init(settings: Settings) {
        journal = EventJournal(url: settings.paths.outbox)
    }

    /// A lost event must not fail the login or redemption it describes: say so and go on.
    func record(_ name: Name, userID: String?, tourID: String? = nil) {
        let event = AnalyticsEvent(name: name.rawValue, userID: userID, tourID: tourID, timestamp: Date())
        do { try journal.append(event) } catch {
            Console.err("walkscape: warning: \(error.message)")
        }
    }
}
