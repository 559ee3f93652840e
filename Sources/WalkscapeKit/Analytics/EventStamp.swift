import Analytics
import Foundation
import TourAPI
import TourModel

/// What every event carries besides what happened, as the service's dashboard reads it:
/// `anonymousId` (one per installation), `userId` when logged in to the event's service, `device`
/// and `osVersion` (DeviceDescription), `properties.platform` = `linux`, and the
/// `properties.eventId` that lets the service drop a batch it got twice.
package struct EventStamp: Sendable {
    package var anonymousID: String
    package var device: DeviceDescription
    package var credentials: Credentials?

    /// Read once per run: the id file (made on first use), the machine, the saved login.
    package static func load(_ paths: WalkscapePaths) -> EventStamp {
        // A config folder that cannot be written still gets an id for this run's events.
        let id = (try? AnonymousID.load(orCreateAt: paths.anonymousID)) ?? UUID().uuidString.lowercased()
        let credentials = try? CredentialsFile(url: paths.credentialsFile).load()
        return EventStamp(anonymousID: id, device: .current(), credentials: credentials ?? nil)
    }

    package func apply(to event: inout AnalyticsEvent, origin: EventOrigin, eventID: UUID?) {
        if let eventID {
            event.properties["eventId"] = .string(eventID.uuidString.lowercased())
        } else if event.eventID == nil {
            event.properties["eventId"] = .string(UUID().uuidString.lowercased())
        }
        event.properties["platform"] = .string(AnalyticsEvent.platform)
        event.anonymousID = event.anonymousID ?? anonymousID
        if event.userID == nil, let credentials, credentials.service == origin.service {
            event.userID = credentials.userID
        }
        event.device = event.device ?? device.device
        event.osVersion = event.osVersion ?? device.osVersion
    }
}
