/// Where an event's ids come from, decided when it is recorded by the code that knows where the
/// tour came from (the command line, the composition root), so the batcher never has to guess.
///
/// Only ids that came from a service may be sent to it: the live service answers 500 for the whole
/// batch when one event names a tour or point it does not know (its foreign keys).
public enum EventOrigin: Sendable, Hashable {
    /// Ids of this service (`ServiceURL.key`): the event goes to that service, and to no other.
    case service(String)
    /// A tour folder on this machine: its ids mean nothing to any service. Kept, never sent.
    case local

    /// The service key, or nil for a local event.
    public var service: String? {
        if case .service(let key) = self { return key }
        return nil
    }
}
