// HeraldStorePostgres: module placeholder until its first real file lands; delete when adding sources.
