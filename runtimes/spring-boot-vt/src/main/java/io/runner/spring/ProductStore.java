package io.runner.spring;

import java.util.List;
import java.util.Optional;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The products, one transaction per request. The repository and the transaction manager exist only when
 * DATABASE_URL is set ({@link DatabaseConfig}), hence the providers: without them {@link #configured()} is
 * false and the controller answers 503.
 * <p>
 * Update is Spring Data JPA's usual read-then-write: a SELECT of the row, then Hibernate's dirty check
 * issues the UPDATE at commit, both in one transaction (the contract says this cost is what is measured).
 */
@Component
public class ProductStore {
    private final ProductRepository repository;
    private final TransactionTemplate transactions;

    public ProductStore(ObjectProvider<ProductRepository> repository,
                        ObjectProvider<PlatformTransactionManager> transactions) {
        this.repository = repository.getIfAvailable();
        PlatformTransactionManager manager = transactions.getIfAvailable();
        this.transactions = manager == null ? null : new TransactionTemplate(manager);
    }

    boolean configured() {
        return repository != null && transactions != null;
    }

    Optional<ProductView> read(long id) {
        return repository.findById(id).map(Product::view);
    }

    ProductView create(ProductBody body) {
        return repository.save(new Product(body)).view();
    }

    Optional<ProductView> update(long id, ProductBody body) {
        return transactions.execute(status -> repository.findById(id).map(product -> {
            product.replace(body);
            return product.view();
        }));
    }

    List<ProductView> page(int limit, long offset) {
        return repository.page(limit, offset).stream().map(Product::view).toList();
    }
}
