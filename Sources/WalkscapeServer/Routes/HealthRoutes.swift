import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import TourModel

/// `GET /health`: 200 `{status: "ok", ...}` while the database answers, else 503. Exempt from every
/// fault switch, so scripts and tests can tell "up" from "injected failure".
struct HealthRoutes: Sendable {
    let services: ServerServices

    func register(on router: Router<ServerContext>) {
        router.get("/health") { _, _ in
            var details: [String: JSONValue] = [
                "tours": ["status": "up", "count": .number(Double(services.catalog.count))]
            ]
            do {
                _ = try services.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
                details["database"] = ["status": "up"]
                return services.json(HealthStatus(status: "ok", details: details))
            } catch {
                details["database"] = ["status": "down", "message": .string("\(error)")]
                return services.json(HealthStatus(status: "error", details: details), status: .serviceUnavailable)
            }
        }
    }
}
