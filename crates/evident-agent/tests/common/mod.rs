pub mod hostile_repo;
