import Foundation
import XCTest
import Sift

// The WCDB Swift usage sample (a manager singleton and a chained select),
// adapted only where it uses iOS paths.

final class StationModel: TableCodable {
    var statid: Int = 0
    var cityid: Int = 0
    var statpname: String? = nil
    enum CodingKeys: String, CodingTableKey {
        typealias Root = StationModel
        static let objectRelationalMapping = TableBinding(CodingKeys.self)
        case statid
        case cityid
        case statpname
    }
    init() {}
    init(_ statid: Int, _ cityid: Int, _ name: String) {
        self.statid = statid
        self.cityid = cityid
        statpname = name
    }
}

final class HMDataBaseManager: @unchecked Sendable {
    let dataBase: Database?
    init(path: String) { dataBase = Database(withFileURL: URL(fileURLWithPath: path)) }

    func createTable<T: TableDecodable>(table: String, of ttype: T.Type) -> Void {
        do {
            try dataBase?.create(table: table, of: ttype)
        } catch let error {
            debugPrint("create table error \(error.localizedDescription)")
        }
    }
    func insertToDb<T: TableEncodable>(objects: [T], intoTable table: String) -> Void {
        do {
            try dataBase?.insert(objects: objects, intoTable: table)
        } catch let error {
            debugPrint(" insert obj error \(error.localizedDescription)")
        }
    }
    func updateToDb<T: TableEncodable>(table: String, on propertys: [PropertyConvertible], with object: T, where condition: Condition? = nil) -> Void {
        do {
            try dataBase?.update(table: table, on: propertys, with: object, where: condition)
        } catch let error {
            debugPrint(" update obj error \(error.localizedDescription)")
        }
    }
    func deleteFromDb(fromTable: String, where condition: Condition? = nil) -> Void {
        do {
            try dataBase?.delete(fromTable: fromTable, where: condition)
        } catch let error {
            debugPrint("delete error \(error.localizedDescription)")
        }
    }
    func qureyFromDb<T: TableDecodable>(fromTable: String, cls cName: T.Type, where condition: Condition? = nil, orderBy orderList: [OrderBy]? = nil) -> [T]? {
        do {
            let allObjects: [T] = try (dataBase?.getObjects(fromTable: fromTable, where: condition, orderBy: orderList))!
            return allObjects
        } catch let error {
            debugPrint("no data find \(error.localizedDescription)")
        }
        return nil
    }
    func dropTable(table: String) -> Void {
        do {
            try dataBase?.drop(table: table)
        } catch let error {
            debugPrint("drop table error \(error)")
        }
    }
    func removeDbFile() -> Void {
        do {
            try dataBase?.close(onClosed: {
                try dataBase?.removeFiles()
            })
        } catch let error {
            debugPrint("not close db \(error)")
        }
    }
    func qureyAllStations(cityId: Int) -> [StationModel] {
        var stationArray = [StationModel]()
        do {
            let selectPrep = try dataBase?.prepareSelect(on: StationModel.Properties.all, fromTable: String(describing: StationModel.self)).where(StationModel.Properties.cityid == cityId).group(by: StationModel.Properties.statid).order(by: StationModel.Properties.statpname.asOrder(by: .ascending))
            stationArray = try selectPrep?.allObjects() ?? []
        } catch let error {
            debugPrint("\(error)")
        }
        return stationArray
    }
}

final class UsageSampleTests: SiftTestCase {
    func testManagerSample() throws {
        let manager = HMDataBaseManager(path: path("HMDB/HMDB.db"))
        let table = String(describing: StationModel.self)
        manager.createTable(table: table, of: StationModel.self)
        manager.insertToDb(objects: [StationModel(1, 10, "b"), StationModel(2, 10, "a"), StationModel(2, 10, "a"),
                                     StationModel(3, 20, "c")], intoTable: table)
        XCTAssertEqual(manager.qureyAllStations(cityId: 10).map(\.statpname), ["a", "b"], "grouped by statid, ordered by name")
        let renamed = StationModel()
        renamed.statpname = "renamed"
        manager.updateToDb(table: table, on: [StationModel.Properties.statpname], with: renamed, where: StationModel.Properties.statid == 3)
        let ordered = manager.qureyFromDb(fromTable: table, cls: StationModel.self,
                                          orderBy: [StationModel.Properties.statid.asOrder(by: .descending)])
        XCTAssertEqual(ordered?.first?.statpname, "renamed")
        manager.deleteFromDb(fromTable: table, where: StationModel.Properties.cityid == 10)
        XCTAssertEqual(manager.qureyFromDb(fromTable: table, cls: StationModel.self)?.count, 1)
        manager.dropTable(table: table)
        XCTAssertNil(manager.qureyFromDb(fromTable: table, cls: StationModel.self), "querying a dropped table reports an error")
        manager.removeDbFile()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("HMDB/HMDB.db")))
    }
}
