package struct DoctorCheck: Encodable, Sendable {
    package enum Status: String, Encodable, Sendable {
        case ok, warn, fail
        package var colorCode: String { self == .ok ? "32" : self == .warn ? "33" : "31" }
    }
    package var name: String
    package var status: Status
    package var detail: String
    package var hint: String?
}
