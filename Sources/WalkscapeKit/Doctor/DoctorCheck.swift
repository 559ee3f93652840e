struct DoctorCheck: Encodable, Sendable {
    enum Status: String, Encodable, Sendable {
        case ok, warn, fail
        var colorCode: String { self == .ok ? "32" : self == .warn ? "33" : "31" }
    }
    var name: String
    var status: Status
    var detail: String
    var hint: String?
}
